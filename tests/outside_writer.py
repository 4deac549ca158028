"""Child process for tests/test_outside_writes.py: another process writing the store a served repo uses.

Each round commits a new record and seeds it (a `git pull` reseed), then records a candidate (a `jgm
remember`), each through the product's own write path in this process, opening and closing the index
as a CLI run would. It stops after ROUNDS rounds or when STOP_FILE appears, and prints the rounds done.

    python tests/outside_writer.py REPO ROUNDS STOP_FILE
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

PAUSE = 0.3  # seconds between rounds


def main(repo: Path, rounds: int, stop: Path) -> int:
    from jupiter_git_memory.candidates.model import CandidateInput
    from jupiter_git_memory.candidates.service import CandidateService
    from jupiter_git_memory.index.vectors import reset_clients
    from jupiter_git_memory.seed.seeder import Seeder

    seeder = Seeder(repo)
    service = CandidateService(seeder=seeder)
    done = 0
    for i in range(rounds):
        if stop.exists():
            break
        rid = f"fact-outside-{i}"
        path = repo / "knowledge" / "outside" / f"{rid}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"---\nid: {rid}\nkind: fact\nstatus: verified\ntitle: Outside write {i} sets the relay port\n---\n"
            f"The relay of outside write {i} listens on port {5000 + i}.\n",
            encoding="utf-8",
        )
        subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True, capture_output=True, timeout=60)
        subprocess.run(["git", "-C", str(repo), "commit", "-qm", rid], check=True, capture_output=True, timeout=60)
        seeder.seed()
        reset_clients()  # as a fresh CLI process would: no Chroma client kept across writes
        service.record(
            CandidateInput(
                "fact",
                f"Outside observation {i}",
                f"Measured in agent.py: the outside queue depth reached {i * 7} items in round {i}, so it pages.",
            )
        )
        reset_clients()
        done += 1
        time.sleep(PAUSE)  # room for the server's readers between two writes, as between two CLI runs
    print(done, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])))
