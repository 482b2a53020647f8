"""No test reaches the network: a Hub lookup or a raw connection fails at once, with a message
saying why, instead of hanging until a timeout.

Two layers: Hugging Face offline mode (conftest's hf_cache.activate_offline_cache sets
HF_HUB_OFFLINE before anything imports huggingface_hub), and pytest-socket
(``--disable-socket --allow-unix-socket`` in pyproject's addopts), which makes every
inet socket and every name lookup (getaddrinfo) raise, so even code that ignores offline
mode cannot open a connection. Both errors are raised before any I/O: there is nothing to
wait for (``pytest --durations=0 conformance/tests/test_offline.py`` shows milliseconds).
"""

from __future__ import annotations

import os
import socket

import pytest
from pytest_socket import SocketBlockedError

# pytest-socket also warns each time it blocks; here blocking is the expected outcome.
pytestmark = [pytest.mark.filterwarnings("ignore:A test tried to use socket"), pytest.mark.selftest]

NOT_IN_FIXTURES = "some-org/not-in-fixtures"
# Where the guard tests point: loopback, port 9 (discard). Should the guard ever be off, the
# attempt is refused locally (and the test fails) instead of sending anything off the machine.
NOWHERE = ("localhost", 9)


def test_the_session_is_in_hugging_face_offline_mode():
    from huggingface_hub import constants

    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert constants.HF_HUB_OFFLINE


@pytest.fixture(scope="module")
def auto_tokenizer():
    """Imported in setup, so the test's own duration is the failed lookup alone."""
    from transformers import AutoTokenizer

    return AutoTokenizer


def test_a_tokenizer_not_in_the_fixtures_fails_at_once(auto_tokenizer):
    # transformers 5 / 4.57 say "them", 4.39 says "it": both name the cache as the cause.
    with pytest.raises(OSError, match="couldn't find (them|it) in the cached files"):
        auto_tokenizer.from_pretrained(NOT_IN_FIXTURES)


def test_a_hub_api_call_is_refused_by_offline_mode():
    from huggingface_hub import HfApi
    from huggingface_hub.errors import OfflineModeIsEnabled

    with pytest.raises(OfflineModeIsEnabled, match="offline mode is enabled"):
        HfApi().model_info(NOT_IN_FIXTURES)


@pytest.fixture
def hub_online(monkeypatch):
    """Offline mode switched off for one test. huggingface_hub 0.x also bakes the flag into
    its cached HTTP session, so the session is dropped on the way in and out."""
    from huggingface_hub import constants
    from huggingface_hub.utils import _http

    def drop_sessions():
        for name in ("reset_sessions", "close_session"):  # 0.x, 1.x+
            if hasattr(_http, name):
                getattr(_http, name)()

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    drop_sessions()
    yield
    monkeypatch.undo()
    drop_sessions()


def test_a_hub_download_ignoring_offline_mode_is_blocked_by_the_socket_guard(hub_online):
    """Second layer: with offline mode switched off, the download's name lookup is refused."""
    import huggingface_hub

    with pytest.raises(SocketBlockedError, match="getaddrinfo"):
        huggingface_hub.hf_hub_download(
            NOT_IN_FIXTURES, "config.json", endpoint="http://{}:{}".format(*NOWHERE)
        )


def test_a_raw_connection_is_blocked_at_the_name_lookup():
    with pytest.raises(SocketBlockedError, match="getaddrinfo"):
        socket.create_connection(NOWHERE, timeout=30)


def test_a_raw_connection_to_an_address_is_blocked():
    with pytest.raises(SocketBlockedError):
        socket.create_connection(("127.0.0.1", NOWHERE[1]), timeout=30)


def test_an_inet_socket_cannot_even_be_created():
    with pytest.raises(SocketBlockedError):
        socket.socket(socket.AF_INET, socket.SOCK_STREAM)
