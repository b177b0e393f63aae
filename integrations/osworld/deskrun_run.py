"""Run one of OSWorld's scripts with the deskrun provider registered.

    python /path/to/deskrun/integrations/osworld/deskrun_run.py run_multienv.py \
        --provider_name deskrun [the script's own arguments...]

Run it from OSWorld's checkout (so that ``desktop_env`` imports); the script
runs as ``__main__`` with the remaining arguments, exactly as
``python run_multienv.py ...`` would, except that ``--provider_name deskrun``
now starts deskrun sessions.
"""

import os
import runpy
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.getcwd())

import deskrun_provider  # noqa: E402


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: deskrun_run.py SCRIPT.py [ARGS...]")
    deskrun_provider.register()
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
