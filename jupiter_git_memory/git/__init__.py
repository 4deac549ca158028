"""Everything we ask git, in one package: the runner (timeouts, no prompts), workspace identity, revisions and
ancestry, status and listings, config, the drift plumbing, and the store git config names. Named operations
write each flag once (`--no-optional-locks`, `-z`, `--end-of-options`); no module outside this package
builds a git command line (tests/test_git_package.py). Kept import-light: the thin client and the hooks
import it on every call."""
