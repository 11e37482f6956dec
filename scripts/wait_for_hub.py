"""Wait for a hub started in the background: exit 0 once 127.0.0.1:PORT answers /healthz, 1 when its process PID
has exited or SECONDS have passed. Usage: python scripts/wait_for_hub.py PORT PID SECONDS"""

import os
import sys
import time

import httpx


def main(port: str, pid: int, seconds: float) -> int:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            print(f"the hub (pid {pid}) exited before it answered /healthz", file=sys.stderr)
            return 1
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                return 0
        except httpx.HTTPError:
            time.sleep(0.5)  # a shell script's start-up wait, not a test
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3])))
