"""Fail unless every package pinned in the constraints file is installed at exactly that version (a
constraint pip could not honour would otherwise leave a newer version and a green run that proves nothing)."""

import sys
from importlib.metadata import PackageNotFoundError, version

from packaging.requirements import Requirement
from packaging.version import Version

bad = []
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    req = Requirement(line)
    (spec,) = req.specifier
    try:
        got = version(req.name)
    except PackageNotFoundError:
        got = "not installed"
    if got == "not installed" or Version(got) != Version(spec.version):
        bad.append(f"{req.name}: pinned {spec.version}, installed {got}")
    else:
        print(f"{req.name}=={got}")
if bad:
    sys.exit("not at the lower bound:\n  " + "\n  ".join(bad))
