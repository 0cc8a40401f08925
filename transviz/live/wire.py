"""One WebSocket from a student's side: asyncio's streams driven by websockets' Sans-I/O protocol
(:class:`websockets.client.ClientProtocol`).

Not ``websockets.asyncio.client``: that module imports :mod:`ssl` when it loads, and the classroom
bundle leaves TLS out (build.spec: a class runs on the local network, the app never goes online).
The protocol object does the WebSocket (handshake, framing, masking, answering pings, closing);
this class only moves its bytes.
"""
from __future__ import annotations

import asyncio
import contextlib
from collections import deque

from websockets.client import ClientProtocol
from websockets.exceptions import InvalidState
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import SEND_EOF, State
from websockets.uri import parse_uri

READ_BYTES = 65536


class Closed(ConnectionError):
    """The connection has closed (``code``: its close code, 1006 when it just dropped)."""

    def __init__(self, code: int) -> None:
        super().__init__(f"connection closed ({code})")
        self.code = code


class WebSocket:
    """A client WebSocket; :meth:`open` makes one."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, protocol: ClientProtocol) -> None:
        self._reader, self._writer, self._protocol = reader, writer, protocol
        self._events: deque[object] = deque()
        self._parts: list[bytes] = []  # a text message's frames so far
        self._ended = False  # the server's side of the stream has ended

    @classmethod
    async def open(cls, url: str, timeout: float, max_size: int) -> WebSocket:
        """Connect to ``url`` (ws://) and complete the opening handshake within ``timeout`` seconds.
        OSError, TimeoutError, or websockets' InvalidHandshake (a refused handshake, e.g. 503 when full)."""
        uri = parse_uri(url)
        reader, writer = await asyncio.wait_for(asyncio.open_connection(uri.host, uri.port), timeout)
        protocol = ClientProtocol(uri, max_size=max_size)
        socket = cls(reader, writer, protocol)
        try:
            protocol.send_request(protocol.connect())
            await socket._flush()
            await asyncio.wait_for(socket._handshake(), timeout)
        except BaseException:
            writer.close()
            raise
        return socket

    async def _handshake(self) -> None:
        for _ in range(1000):  # the response is a few hundred bytes: bounded however it is split
            await self._read()
            while self._events:
                event = self._events.popleft()
                if isinstance(event, Response):
                    if self._protocol.handshake_exc is not None:
                        raise self._protocol.handshake_exc
                    return
            if self._ended:
                raise ConnectionError("the server closed the connection during the opening handshake")
        raise ConnectionError("no handshake response")

    @property
    def close_code(self) -> int | None:
        """The close code once closed (1006: dropped without one), else None."""
        code = self._protocol.close_code
        return None if code is None else int(code)

    async def recv(self, timeout: float | None = None) -> str:
        """The next text message (binary ones are skipped). Closed once the connection has closed;
        TimeoutError when nothing at all arrives for ``timeout`` seconds."""
        while True:
            while self._events:
                event = self._events.popleft()
                if not isinstance(event, Frame) or event.opcode not in (Opcode.TEXT, Opcode.CONT, Opcode.BINARY):
                    continue  # pings are answered by the protocol; a close ends the stream below
                if event.opcode is Opcode.BINARY:
                    self._parts = [b"\0"]  # marks a binary message: dropped when it ends
                else:
                    self._parts.append(bytes(event.data))
                if event.fin:
                    parts, self._parts = self._parts, []
                    if parts[:1] != [b"\0"]:
                        return b"".join(parts).decode("utf-8")
            if self._ended or self._protocol.state is State.CLOSED:
                raise Closed(self.close_code or 1006)
            await asyncio.wait_for(self._read(), timeout)

    async def send(self, text: str) -> None:
        """Send one text message; Closed if the connection is closing or closed."""
        try:
            self._protocol.send_text(text.encode("utf-8"))
        except InvalidState:
            raise Closed(self.close_code or 1006) from None
        await self._flush()

    async def start_close(self) -> None:
        """Send the close frame (code 1000) and return: whoever is reading sees the connection end.
        Nothing, if it is closing already."""
        with contextlib.suppress(InvalidState, OSError, RuntimeError):
            if self._protocol.state is State.OPEN:
                self._protocol.send_close(1000)
                await self._flush()

    async def close(self, timeout: float = 1.0) -> None:
        """Close with code 1000, waiting at most ``timeout`` seconds for the server's reply (only
        when nothing else is reading: else :meth:`start_close`)."""
        await self.start_close()
        deadline = asyncio.get_running_loop().time() + timeout
        with contextlib.suppress(Exception):
            while not self._ended and self._protocol.state is not State.CLOSED:
                await asyncio.wait_for(self._read(), max(0.0, deadline - asyncio.get_running_loop().time()))
        self.abort()

    def abort(self) -> None:
        """Drop the connection at once."""
        self._writer.close()

    async def _read(self) -> None:
        try:
            data = await self._reader.read(READ_BYTES)
        except OSError:  # reset by the peer: as if it had ended
            data = b""
        if data:
            self._protocol.receive_data(data)
        else:
            self._ended = True
            self._protocol.receive_eof()
        self._events.extend(self._protocol.events_received())
        await self._flush()  # pongs, the reply to a close
        if self._ended or (self._protocol.close_expected() and self._protocol.state is State.CLOSED):
            self._writer.close()

    async def _flush(self) -> None:
        for data in self._protocol.data_to_send():
            if data == SEND_EOF:
                with contextlib.suppress(OSError, RuntimeError):
                    if self._writer.can_write_eof():
                        self._writer.write_eof()
            else:
                self._writer.write(data)
        with contextlib.suppress(OSError, RuntimeError):
            await self._writer.drain()
