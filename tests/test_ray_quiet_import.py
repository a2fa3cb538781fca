"""``--quiet`` keeps the cluster's notices off the driver's output through Ray's documented
``RAY_DEDUP_LOGS_SKIP_REGEX``, set only while the run imports Ray: the user's environment, and the
environment of anything the program starts later, is as it was (the quiet run's SIGTERM test,
tests/test_ray_address_checked.py, shows the notices gone)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import REPO, SAMPLE_CORPUS

pytest.importorskip("ray")
pytestmark = pytest.mark.ray


@pytest.mark.parametrize("given", [None, "my-own-regex"])
def test_a_quiet_ray_run_leaves_the_environment_as_it_was(given: str | None) -> None:
    code = (
        "import json, os, sys\n"
        f"given = {given!r}\n"
        "if given is not None:\n"
        "    os.environ['RAY_DEDUP_LOGS_SKIP_REGEX'] = given\n"
        "from batchsum.config import RunConfig\n"
        "from batchsum.engine.ray_executor import ray_executor\n"
        f"ray_executor(RunConfig(paths=[{str(SAMPLE_CORPUS)!r}], out='unused', quiet=True))\n"
        "print(json.dumps({'ray': 'ray' in sys.modules, 'value': os.environ.get('RAY_DEDUP_LOGS_SKIP_REGEX')}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == {"ray": True, "value": given}
