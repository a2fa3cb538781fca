"""Whether an address is a Ray head that will take this machine, asked before a run touches its output
folder: one gRPC call to the head's GCS with a deadline.

``ray.init`` on an address that accepts connections but is no GCS (a typo'd port, the dashboard's HTTP
port, a raylet's port) retries for ever, and refuses a wrong token only after ~20 s with a bare "Failed
to connect". Light to import (gRPC, not Ray): the command checks this before it loads anything heavy.
"""

from __future__ import annotations

import importlib.util
import os
import socket
from typing import Any

from batchsum.errors import ConfigError

# Every GCS serves it, before any other call a client makes; it needs nothing but the cluster's token.
GCS_METHOD = "/ray.rpc.NodeInfoGcsService/GetClusterId"
GCS_PROBE_S = 5.0  # a head answers in milliseconds; a silent server is given this long

WRONG_TOKEN_HINT = (
    "if the cluster refused this machine's token, RAY_AUTH_TOKEN or ~/.ray/auth_token must be the one"
    " `ray get-auth-token` prints on the head node"
)
TOKEN_HINT = (
    "no Ray cluster token here: a cluster started with token authentication (`ray start --head` with"
    " Ray >= 2.60) needs RAY_AUTH_TOKEN=<token> or the file ~/.ray/auth_token; `ray get-auth-token`"
    " on the head node prints it"
)


def _token_path() -> str:
    return os.environ.get("RAY_AUTH_TOKEN_PATH") or os.path.expanduser("~/.ray/auth_token")


def cluster_token_available() -> bool:
    """Whether this machine has a Ray cluster token: ``RAY_AUTH_TOKEN``, the file ``RAY_AUTH_TOKEN_PATH``
    names, or ``~/.ray/auth_token`` (where Ray looks, in that order)."""
    return bool(os.environ.get("RAY_AUTH_TOKEN")) or os.path.isfile(_token_path())


def token_sent() -> str | None:
    """The token a join sends: this machine's (:func:`cluster_token_available`), unless the user set a
    ``RAY_AUTH_MODE`` other than ``token`` (then Ray sends none)."""
    if os.environ.get("RAY_AUTH_MODE", "token") != "token":
        return None
    if token := os.environ.get("RAY_AUTH_TOKEN", "").strip():
        return token
    try:
        with open(_token_path(), encoding="utf-8") as f:
            return f.read().strip() or None
    except OSError:
        return None


def _tls_credentials(grpc: Any) -> Any:
    """The channel credentials Ray's own clients use when ``RAY_USE_TLS`` is on (``ray._common.tls_utils``:
    ``RAY_TLS_SERVER_CERT``, ``RAY_TLS_SERVER_KEY``, ``RAY_TLS_CA_CERT``), or None: a TLS head closes a
    plain connection before it answers."""
    if os.environ.get("RAY_USE_TLS", "0").lower() not in ("1", "true"):
        return None
    names = ("RAY_TLS_SERVER_CERT", "RAY_TLS_SERVER_KEY", "RAY_TLS_CA_CERT")
    if missing := [n for n in names if not os.environ.get(n)]:
        raise ConfigError(f"RAY_USE_TLS is set but {', '.join(missing)} is not (Ray needs all of {', '.join(names)})")
    pem: list[bytes] = []
    for n in names:
        try:
            with open(os.environ[n], "rb") as f:
                pem.append(f.read())
        except OSError as exc:
            raise ConfigError(f"{n}: cannot read {os.environ[n]} ({exc.strerror or exc})") from None
    chain, key, ca = pem
    return grpc.ssl_channel_credentials(root_certificates=ca, private_key=key, certificate_chain=chain)


def check_gcs(target: str, timeout: float = GCS_PROBE_S) -> None:
    """ConfigError unless ``target`` (``host:port``) is a Ray head's GCS that accepts this machine's token
    (:func:`token_sent`), answered within ``timeout`` seconds. Without gRPC installed nothing is checked:
    ``ray.init`` says what it finds."""
    try:
        import grpc
    except ImportError:
        return
    token = token_sent()
    metadata = (("authorization", f"Bearer {token}"),) if token else ()
    # As Ray's own clients: no HTTP proxy between a client and its cluster unless Ray is told to use one.
    proxy = os.environ.get("RAY_grpc_enable_http_proxy", "0").lower() in ("1", "true")  # noqa: SIM112 (Ray's name)
    options = [("grpc.enable_http_proxy", int(proxy))]
    credentials = _tls_credentials(grpc)
    channel = (
        grpc.secure_channel(target, credentials, options=options)
        if credentials is not None
        else grpc.insecure_channel(target, options=options)
    )
    with channel:
        call = channel.unary_unary(GCS_METHOD)  # bytes in, bytes out: the empty request needs no Ray protos
        try:
            call(b"", timeout=timeout, metadata=metadata)
        except grpc.RpcError as exc:
            code = exc.code() if isinstance(exc, grpc.Call) else None
            if code == grpc.StatusCode.UNAUTHENTICATED:
                hint = WRONG_TOKEN_HINT if token else TOKEN_HINT
                raise ConfigError(f"the Ray head at {target} refused to let this machine join ({hint})") from None
            details = exc.details() if isinstance(exc, grpc.Call) else str(exc)
            why = f"{code.name if code else 'error'}: {details}" if details else (code.name if code else "no answer")
            raise ConfigError(
                f"not a Ray head (GCS) at {target}: it accepts connections but does not answer as one ({why});"
                " give the head's GCS port (`ray start --head --port`, 6379 by default), not its dashboard's"
            ) from None


def require_ray(address: str | None = None) -> None:
    """ConfigError naming the extra to install when Ray is not installed (``--executor ray``), or naming
    ``address`` (``--ray-address``; ``auto``: ``RAY_ADDRESS``, which must be set) when nothing there accepts
    a connection, or what does is no Ray head that takes this machine (:func:`check_gcs`).
    Checked without importing Ray, so the command can check before it touches the output folder and an
    unchanged re-run never loads Ray; Ray itself waits minutes, or for ever, for a head that is not there."""
    if importlib.util.find_spec("ray") is None:
        raise ConfigError("--executor ray needs Ray: pip install 'batchsum[ray]'")
    target = os.environ.get("RAY_ADDRESS") if address == "auto" else address
    if address == "auto" and not target:
        raise ConfigError(AUTO_NEEDS_ADDRESS)
    if not target or target == "local":
        return
    host, _, port = target.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return  # Ray's own parser says what is wrong with it
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=RAY_PROBE_S):
            pass
    except OSError as exc:
        reason = "connection refused" if isinstance(exc, ConnectionRefusedError) else (exc.strerror or str(exc))
        raise ConfigError(
            f"cannot reach Ray at {target} ({reason}); is the head node up (`ray start --head`)? "
            "Without --ray-address a run starts a Ray of its own"
        ) from None
    if not target.startswith("ray://"):  # a Ray Client server is no GCS: ray.init checks it
        check_gcs(target)


RAY_PROBE_S = 5.0  # a head node answers a connect at once; an unroutable address times out here
AUTO_NEEDS_ADDRESS = "--ray-address auto needs RAY_ADDRESS (the address of a running Ray cluster)"
