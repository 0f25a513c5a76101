"""An S3-compatible server for the tests: moto's server mode on a loopback port (what s3fs's own
tests use), with a bucket per test; never a mock inside the code under test."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

CREDENTIALS = {"AWS_ACCESS_KEY_ID": "dbjson-test-key", "AWS_SECRET_ACCESS_KEY": "dbjson-test-secret-0123456789"}


@dataclass
class S3:
    endpoint: str
    bucket: str

    @property
    def options(self) -> dict[str, Any]:
        """fsspec storage options for this server."""
        return {
            "endpoint_url": self.endpoint,
            "key": CREDENTIALS["AWS_ACCESS_KEY_ID"],
            "secret": CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
        }

    def env(self) -> dict[str, str]:
        """The environment of a CLI run against this server (fsspec reads FSSPEC_S3_*)."""
        return {**os.environ, **CREDENTIALS, "FSSPEC_S3_ENDPOINT_URL": self.endpoint, "AWS_DEFAULT_REGION": "us-east-1"}

    def client(self) -> Any:
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            region_name="us-east-1",
            aws_access_key_id=CREDENTIALS["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
        )

    def keys(self, prefix: str = "") -> set[str]:
        resp = self.client().list_objects_v2(Bucket=self.bucket, Prefix=prefix)
        return {o["Key"] for o in resp.get("Contents", [])}

    def uploads(self) -> list[dict[str, Any]]:
        """Multipart uploads begun and not completed (nor aborted)."""
        return list(self.client().list_multipart_uploads(Bucket=self.bucket).get("Uploads", []))


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """moto's server in a process of its own: a server thread in the test process would make every
    later import in this worker run without its encoder processes (a caller with threads gets none)."""
    import socket
    import subprocess
    import sys
    import time

    pytest.importorskip("s3fs")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("moto's S3 server did not start") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def s3(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> S3:
    for k, v in CREDENTIALS.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    store = S3(s3_endpoint, "dbjson-" + uuid.uuid4().hex[:12])
    store.client().create_bucket(Bucket=store.bucket)
    return store
