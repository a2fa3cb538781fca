"""The GCS probe of ``--ray-address`` on a TLS Ray cluster (``RAY_USE_TLS=1``): it speaks TLS with the
``RAY_TLS_*`` certificates, as Ray's own clients do, where a plain channel is closed by the head unanswered."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import pytest

from batchsum.engine.ray_probe import GCS_METHOD, require_ray
from batchsum.errors import ConfigError

grpc = pytest.importorskip("grpc")
pytest.importorskip("ray")  # require_ray asks for Ray before it probes


def _self_signed(folder: Path) -> tuple[Path, Path]:
    """(certificate, key) for 127.0.0.1, made here: with ``cryptography`` when installed, else ``openssl``."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    try:
        import datetime
        import ipaddress

        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID
    except ImportError:
        if shutil.which("openssl") is None:
            pytest.skip("neither the `cryptography` package nor `openssl` is here to make a test certificate")
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=localhost",
             "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
            check=True, capture_output=True,
        )  # fmt: skip
        return cert, key
    pk = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    san = x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")])
    built = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(pk.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=2)).add_extension(san, critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(pk, hashes.SHA256())
    )  # fmt: skip
    cert.write_bytes(built.public_bytes(serialization.Encoding.PEM))
    key.write_bytes(
        pk.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert, key


class _GcsStandIn(grpc.GenericRpcHandler):  # type: ignore[misc]
    """Answers the probe's call as a GCS does (an empty reply), and nothing else."""

    def service(self, details: Any) -> Any:
        if details.method == GCS_METHOD:
            return grpc.unary_unary_rpc_method_handler(lambda request, context: b"")
        return None


@pytest.fixture
def tls_head(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """``host:port`` of a TLS-only GCS stand-in, with this process's RAY_USE_TLS/RAY_TLS_* set for it."""
    cert, key = _self_signed(tmp_path)
    server = grpc.server(futures.ThreadPoolExecutor(2))
    server.add_generic_rpc_handlers((_GcsStandIn(),))
    port = server.add_secure_port("127.0.0.1:0", grpc.ssl_server_credentials([(key.read_bytes(), cert.read_bytes())]))
    server.start()
    for var, value in {"RAY_USE_TLS": "1", "RAY_TLS_SERVER_CERT": cert, "RAY_TLS_SERVER_KEY": key,
                       "RAY_TLS_CA_CERT": cert}.items():  # fmt: skip
        monkeypatch.setenv(var, str(value))
    for var in ("RAY_AUTH_TOKEN", "RAY_AUTH_MODE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(tmp_path / "no-token"))
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop(0)


def test_the_probe_joins_a_tls_head_with_the_ray_tls_certificates(tls_head: str) -> None:
    require_ray(tls_head)  # no ConfigError: the head answered the probe over TLS


def test_tls_without_its_certificates_is_named(tls_head: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAY_TLS_SERVER_KEY")
    with pytest.raises(ConfigError, match="RAY_TLS_SERVER_KEY"):
        require_ray(tls_head)
