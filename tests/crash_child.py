"""Child process for tests/test_crash_safety.py: a real seed that SIGKILLs itself at event N.

Events are the points where the seed's state on disk changes or is about to: each embedded batch, each
slice of vectors written to / updated in / deleted from Chroma (writes are cut into slices of SLICE so a
kill can land between two of them), the writer's `fault` stages, a point inside the catalog's transaction (before COMMIT), and the commit. The wrappers only
count and kill (fault injection); every write still goes through the product's code.

    JGM_CRASH_AT=7 python tests/crash_child.py REPO     # dies by SIGKILL at the 7th event
    JGM_CRASH_REBUILD=1 JGM_CRASH_SIGNAL=SIGINT ...     # the same for `seed --rebuild`, Ctrl-C instead
    python tests/crash_child.py REPO                    # no kill: prints the event census as JSON
"""

from __future__ import annotations

import json
import os
import signal
import sys

SLICE = 20
EVENTS: list[str] = []


def event(name: str) -> None:
    EVENTS.append(name)
    sys.stderr.write(f"EVENT {len(EVENTS)} {name}\n")
    sys.stderr.flush()
    if len(EVENTS) == int(os.environ.get("JGM_CRASH_AT", "0") or 0):
        os.kill(os.getpid(), getattr(signal, os.environ.get("JGM_CRASH_SIGNAL", "SIGKILL")))


def install() -> None:
    from jupiter_git_memory.embedding.onnx_embedder import OnnxEmbedder
    from jupiter_git_memory.index.catalog import Catalog
    from jupiter_git_memory.index.vectors import VectorIndex

    run = OnnxEmbedder._run

    def _run(self, texts):
        out = run(self, texts)
        event("embed-batch")
        return out

    OnnxEmbedder._run = _run

    def sliced(method, name, has_vectors):
        def wrapper(self, ids, *rest):
            for i in range(0, len(ids), SLICE):
                method(self, ids[i : i + SLICE], *[r[i : i + SLICE] for r in rest])
                event(name)

        return wrapper

    VectorIndex.add = sliced(VectorIndex.add, "chroma-upsert", True)
    VectorIndex.update_metadata = sliced(VectorIndex.update_metadata, "chroma-update", False)
    VectorIndex.delete = sliced(VectorIndex.delete, "chroma-delete", False)
    apply = Catalog.apply

    def _apply(self, changes):
        fired: list[int] = []

        def in_transaction() -> int:  # SQLite calls this every 2,000 VM steps: the first lands mid-transaction
            if not fired:
                fired.append(1)
                event("catalog-in-transaction")
            return 0

        self._db.set_progress_handler(in_transaction, 2000)  # fault injection reaches into the connection
        try:
            gen = apply(self, changes)
        finally:
            self._db.set_progress_handler(None, 0)
        event("catalog-commit")
        return gen

    Catalog.apply = _apply


def main() -> None:
    install()
    from jupiter_git_memory.seed.seeder import Seeder

    report = Seeder(sys.argv[1]).seed(fault=event, rebuild=bool(os.environ.get("JGM_CRASH_REBUILD")))
    print(json.dumps({"events": EVENTS, "records": report.records, "errors": report.errors}))


if __name__ == "__main__":
    main()
