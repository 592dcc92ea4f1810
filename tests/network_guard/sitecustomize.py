"""Loaded by the app's Python process in the offline test (this folder is put
on its PYTHONPATH): refuses and records every connection or name lookup that
would leave the machine, so the test can prove that none was attempted."""

import ipaddress
import os
import socket

LOG = os.environ["BPE_NETWORK_LOG"]


def _is_local(host) -> bool:
    if host in ("localhost", "", None):
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


def _refuse(what: str, host) -> None:
    with open(LOG, "a", encoding="utf-8") as log:
        log.write(f"{what} {host}\n")
    raise ConnectionRefusedError(f"offline test: {what} to {host} refused")


_connect, _connect_ex, _getaddrinfo = socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo


def _guarded_connect(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_local(address[0]):
        _refuse("connect", address[0])
    return _connect(self, address)


def _guarded_connect_ex(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_local(address[0]):
        _refuse("connect", address[0])
    return _connect_ex(self, address)


def _guarded_getaddrinfo(host, *args, **kwargs):
    if not _is_local(host):
        _refuse("lookup", host)
    return _getaddrinfo(host, *args, **kwargs)


socket.socket.connect = _guarded_connect
socket.socket.connect_ex = _guarded_connect_ex
socket.getaddrinfo = _guarded_getaddrinfo
