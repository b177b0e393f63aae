"""A provider for OSWorld's Python harness that runs each environment on a
deskrun session instead of a virtual machine.

deskrun serves a session created with ``"osworld": true`` as OSWorld's VM:
its environment-server routes answer at a loopback address of the runner
host, next to TCP forwards to Chrome's remote-debugging port and VLC's HTTP
interface. This module creates and deletes such sessions over deskrun's REST
API and tells OSWorld where they are.

Use it without editing OSWorld: ``register()`` makes
``create_vm_manager_and_provider("deskrun", ...)`` return this provider and
``DesktopEnv(provider_name="deskrun", ...)`` accept the name, and
``deskrun_run.py`` calls it before running one of OSWorld's scripts (see the
README's "OSWorld's harness on deskrun" section).

Settings (environment variables):

- ``DESKRUN_URL``: the deskrun server, default ``http://127.0.0.1:8080``. It
  must run on the same host as the harness: the OSWorld addresses are on
  127.0.0.1.
- ``DESKRUN_TOKEN``: the server's bearer token, if it has one.
- ``DESKRUN_SANDBOX_PROVIDER``: ``docker`` or ``local``; default the
  server's.
- ``DESKRUN_IMAGE``: the sandbox image, e.g. ``deskrun/osworld``.
- ``DESKRUN_SCREEN``: ``WIDTHxHEIGHT``, default ``1920x1080`` (OSWorld's),
  for a provider made without a screen size; under ``DesktopEnv`` the
  session has DesktopEnv's ``screen_size``.
- ``DESKRUN_NETWORK``: ``1`` gives the sandbox network egress (tasks that
  download their files need it).
- ``DESKRUN_SUDO``: the desktop user may run sudo with the password
  ``password`` (OSWorld's tasks run ``echo {CLIENT_PASSWORD} | sudo -S ...``
  in their setup; ``deskrun eval`` runs those commands as root). On by
  default; ``0`` turns it off. Local sandboxes run as the server's own user
  and cannot grant it, so with ``DESKRUN_SANDBOX_PROVIDER=local`` it is off
  unless set to ``1``.

Only the Python standard library and ``requests`` are used.
"""

import functools
import inspect
import logging
import os
import sys

import requests

logger = logging.getLogger("desktopenv.providers.deskrun")

PROVIDER_NAME = "deskrun"

# The provider names that mean deskrun's: PROVIDER_NAME and the aliases
# given to register().
_names = {PROVIDER_NAME}

try:  # Inside OSWorld, subclass its interfaces; alone, plain classes do.
    from desktop_env.providers.base import Provider as _Provider, VMManager as _VMManager
except ImportError:  # pragma: no cover - depends on the caller's path
    _Provider, _VMManager = object, object


class DeskrunError(RuntimeError):
    """A call to the deskrun server failed; the message carries its answer."""


class DeskrunClient:
    """The few calls of deskrun's REST API the provider needs."""

    def __init__(self, url=None, token=None, timeout=120):
        self.url = (url or os.environ.get("DESKRUN_URL") or "http://127.0.0.1:8080").rstrip("/")
        self.token = token if token is not None else os.environ.get("DESKRUN_TOKEN", "")
        self.timeout = timeout
        self.http = requests.Session()
        if self.token:
            self.http.headers["Authorization"] = "Bearer " + self.token

    def _check(self, resp, what):
        if resp.status_code // 100 != 2:
            try:
                err = resp.json()["error"]
                detail = "%s: %s" % (err.get("code"), err.get("message"))
            except Exception:
                detail = resp.text[:300]
            raise DeskrunError("deskrun %s: HTTP %d: %s" % (what, resp.status_code, detail))
        return resp

    def create_session(self, body):
        resp = self.http.post(self.url + "/v1/sessions", json=body, timeout=self.timeout)
        return self._check(resp, "create session").json()

    def session(self, sid):
        resp = self.http.get(self.url + "/v1/sessions/" + sid, timeout=self.timeout)
        return self._check(resp, "get session %s" % sid).json()

    def delete_session(self, sid):
        resp = self.http.delete(self.url + "/v1/sessions/" + sid, timeout=self.timeout)
        if resp.status_code == 404:  # already gone
            return
        self._check(resp, "delete session %s" % sid)


def _flag(name, default=False):
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    return value in ("1", "true", "yes", "on")


def session_request(screen_size=None):
    """The body of POST /v1/sessions the provider sends, from the settings."""
    body = {"osworld": True}
    if os.environ.get("DESKRUN_SANDBOX_PROVIDER"):
        body["provider"] = os.environ["DESKRUN_SANDBOX_PROVIDER"]
    if os.environ.get("DESKRUN_IMAGE"):
        body["image"] = os.environ["DESKRUN_IMAGE"]
    if screen_size is None:
        w, _, h = os.environ.get("DESKRUN_SCREEN", "1920x1080").partition("x")
        screen_size = (int(w), int(h))
    body["screen"] = {"width": int(screen_size[0]), "height": int(screen_size[1])}
    if _flag("DESKRUN_NETWORK"):
        body["network"] = True
    if _flag("DESKRUN_SUDO", default=body.get("provider") != "local"):
        body["sudo"] = True
    return body


class DeskrunProvider(_Provider):
    """OSWorld's Provider over deskrun sessions.

    One provider holds at most one session. start_emulator creates it (and
    does nothing while it lives, since OSWorld calls it again after every
    revert); get_ip_address answers ``"127.0.0.1:SERVER:CHROMIUM:VNC:VLC"``,
    the form OSWorld's DesktopEnv splits into its ports (VNC is 0: a deskrun
    session shows its desktop through its own viewer, /v1/sessions/{id}/view);
    revert_to_snapshot deletes the session and creates a fresh one, which is
    deskrun's reset; stop_emulator deletes it. save_state is not supported:
    every session starts from its image.
    """

    def __init__(self, region=None, client=None, screen_size=None):
        self.region = region
        self.client = client or DeskrunClient()
        self.screen_size = screen_size
        self.session = None

    # OSWorld calls start_emulator(path_to_vm, headless) or, in newer
    # trees, start_emulator(path_to_vm, headless, os_type).
    def start_emulator(self, path_to_vm=None, headless=True, *args, **kwargs):
        if self.session is not None:
            return
        self.session = self.client.create_session(session_request(self.screen_size))
        if not self.session.get("osworld"):
            sid = self.session["id"]
            self.session = None
            self.client.delete_session(sid)
            raise DeskrunError("deskrun: the server does not serve OSWorld's routes (no \"osworld\" in the session)")
        logger.info("deskrun session %s: OSWorld server at %s", self.session["id"], self.session["osworld"]["server"])

    def addresses(self):
        """The session's OSWorld addresses: server, chromium and vlc."""
        if self.session is None:
            raise DeskrunError("deskrun: no session; call start_emulator first")
        return self.session["osworld"]

    def get_ip_address(self, path_to_vm=None):
        a = self.addresses()
        host, server = a["server"].rsplit(":", 1)
        chromium = a["chromium"].rsplit(":", 1)[1]
        vlc = a["vlc"].rsplit(":", 1)[1]
        return "%s:%s:%s:%d:%s" % (host, server, chromium, 0, vlc)

    def save_state(self, path_to_vm=None, snapshot_name=None):
        raise NotImplementedError("deskrun sessions have no snapshots: each starts fresh from its image")

    def revert_to_snapshot(self, path_to_vm=None, snapshot_name=None):
        self.stop_emulator(path_to_vm)
        self.start_emulator(path_to_vm)
        return path_to_vm

    def stop_emulator(self, path_to_vm=None, *args, **kwargs):
        if self.session is None:
            return
        sid = self.session["id"]
        self.session = None
        self.client.delete_session(sid)


class DeskrunVMManager(_VMManager):
    """OSWorld's VMManager for deskrun: there are no VM files to register, so
    every environment gets the same placeholder path and its own session."""

    checked_and_cleaned = True

    def initialize_registry(self, **kwargs):
        pass

    def add_vm(self, vm_path, **kwargs):
        pass

    def delete_vm(self, vm_path, **kwargs):
        pass

    def occupy_vm(self, vm_path, pid, **kwargs):
        pass

    def list_free_vms(self, **kwargs):
        return []

    def check_and_clean(self, **kwargs):
        pass

    def get_vm_path(self, *args, **kwargs):
        return PROVIDER_NAME


class _EnvName(str):
    """The provider name DesktopEnv's constructor is given for deskrun.

    DesktopEnv accepts only the names of its own providers, read from set
    literals in its constructor: this name reads "docker" there, the
    provider whose environments start clean, as a deskrun session does (the
    first reset runs no revert; one after a used environment makes a fresh
    session). The provider factory knows it for deskrun's and makes the
    provider with DesktopEnv's screen size.
    """

    def __new__(cls, screen_size):
        name = super().__new__(cls, "docker")
        name.screen_size = screen_size
        return name


def register(alias=None):
    """Make OSWorld's harness take "deskrun" as a provider name.

    It wraps desktop_env.providers.create_vm_manager_and_provider, and the
    name desktop_env.desktop_env imported from it, and DesktopEnv's
    constructor, so that ``DesktopEnv(provider_name="deskrun", ...)`` and
    ``--provider_name deskrun`` work without editing OSWorld: the
    environment's session has DesktopEnv's ``screen_size``, and
    ``env.provider_name`` reads "deskrun" once it is built. Calling it twice
    is harmless.

    alias names another provider name that is to mean deskrun's too, for the
    scripts whose ``--provider_name`` takes only OSWorld's own names (the
    ``scripts/python/run_multienv*.py`` of OSWorld's tree): with ``alias="docker"``,
    ``--provider_name docker`` starts deskrun sessions.
    """
    if alias:
        _names.add(str(alias).lower().strip())
    import desktop_env.providers as providers

    original = providers.create_vm_manager_and_provider
    if not getattr(original, "_deskrun", False):

        def create_vm_manager_and_provider(provider_name, region=None, *args, **kwargs):
            if isinstance(provider_name, _EnvName):
                return DeskrunVMManager(), DeskrunProvider(region, screen_size=provider_name.screen_size)
            if str(provider_name).lower().strip() in _names:
                return DeskrunVMManager(), DeskrunProvider(region)
            return original(provider_name, region, *args, **kwargs)

        create_vm_manager_and_provider._deskrun = True
        providers.create_vm_manager_and_provider = create_vm_manager_and_provider
    module = sys.modules.get("desktop_env.desktop_env")
    if module is None:
        import desktop_env.desktop_env as module
    module.create_vm_manager_and_provider = providers.create_vm_manager_and_provider
    env_class = getattr(module, "DesktopEnv", None)
    if env_class is not None and not getattr(env_class.__init__, "_deskrun", False):
        _wrap_env_init(env_class)


def _wrap_env_init(env_class):
    """Let env_class's constructor take provider_name "deskrun"."""
    original = env_class.__init__
    signature = inspect.signature(original)

    @functools.wraps(original)
    def __init__(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        name = bound.arguments.get("provider_name")
        if isinstance(name, _EnvName) or not (isinstance(name, str) and name.lower().strip() in _names):
            return original(self, *args, **kwargs)
        screen = bound.arguments.get("screen_size")
        bound.arguments["provider_name"] = _EnvName(tuple(int(v) for v in screen[:2]) if screen else None)
        original(*bound.args, **bound.kwargs)
        self.provider_name = PROVIDER_NAME

    __init__._deskrun = True
    env_class.__init__ = __init__
