"""Run one of OSWorld's scripts with the deskrun provider registered.

    cd /path/to/OSWorld
    python /path/to/deskrun/integrations/osworld/deskrun_run.py run.py \
        --provider_name deskrun [the script's own arguments...]

Run it from OSWorld's checkout (so that ``desktop_env`` imports); the script
runs as ``__main__`` with the remaining arguments, exactly as
``python run.py ...`` would, except that ``--provider_name deskrun`` now
starts deskrun sessions. Scripts whose ``--provider_name`` accepts only
OSWorld's own names (``scripts/python/run_multienv.py`` and its siblings)
take one of those for deskrun's with ``--as NAME`` before the script:

    python .../deskrun_run.py --as docker scripts/python/run_multienv.py \
        --provider_name docker [...]
"""

import os
import runpy
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.getcwd())

import deskrun_provider  # noqa: E402

USAGE = "usage: deskrun_run.py [--as PROVIDER_NAME] SCRIPT.py [ARGS...]"


def main():
    args = sys.argv[1:]
    alias = None
    if args[:1] == ["--as"]:
        if len(args) < 2:
            sys.exit(USAGE)
        alias, args = args[1], args[2:]
    if not args:
        sys.exit(USAGE)
    deskrun_provider.register(alias)
    script = args[0]
    sys.argv = args
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
