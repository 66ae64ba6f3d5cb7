"""A live-class student as a lighter client: Streamlit's own websocket protocol, no browser.

It asks for the app at ?class=CODE, reruns each `run_every` fragment when the server says to (as the browser
does), reads the step from the Train page's player component, and votes for the first option of an open vote. Like
the browser's player, it tells the server once it holds a run's history (the component's state "have"), and sends
that state with every rerun after, so the server stops sending the history again.
Used by bench/live_load.py --protocol to measure the server without forty browsers on the same cores.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

PLAYER = "player_train"


class Student:
    def __init__(self, url: str, code: str) -> None:
        self.ws_url = url.replace("http://", "ws://") + "/_stcore/stream"
        self.query = f"class={code}"
        self.fragments: dict[str, float] = {}  # fragment id -> seconds between its reruns
        self.step: int | None = None
        self.first_seen: dict[int, float] = {}  # step -> when this student first drew it
        self.radio: tuple[str, str, str] | None = None  # (widget id, its fragment id, the first option) of an open vote
        self.voted = False
        self.counted = False
        self.states: dict[str, str] = {}  # widget id -> its JSON state, sent with every rerun (as the browser does)
        self.histories = 0  # how many times the server sent this student a run's history (once per run, as to a browser)
        self.told: str | None = None  # the fragment to rerun once: the player just said it holds the history

    def _rerun(self, fragment: str = "", widget: tuple[str, str] | None = None, auto: bool = True) -> bytes:
        msg = BackMsg()
        msg.rerun_script.query_string = self.query
        msg.rerun_script.page_script_hash = ""
        if fragment:
            msg.rerun_script.fragment_id = fragment
            msg.rerun_script.is_auto_rerun = auto and widget is None
        for widget_id, value in self.states.items():
            state = msg.rerun_script.widget_states.widgets.add()
            state.id, state.json_value = widget_id, value
        if widget is not None:
            state = msg.rerun_script.widget_states.widgets.add()
            state.id, state.string_value = widget  # a radio's value is its option's text
        return msg.SerializeToString()

    def _read(self, data: bytes) -> None:
        msg = ForwardMsg()
        msg.ParseFromString(data)
        kind = msg.WhichOneof("type")
        if kind == "auto_rerun":
            self.fragments[msg.auto_rerun.fragment_id] = msg.auto_rerun.interval
        elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            self._element(msg.delta.new_element, msg.delta.fragment_id)

    def _element(self, element, fragment: str) -> None:
        kind = element.WhichOneof("type")
        if kind == "bidi_component" and element.bidi_component.id.endswith(PLAYER):
            data = json.loads(element.bidi_component.json or "{}")
            step = data.get("step")
            if "history" in data:  # player.js: setStateValue("have", digest), which reruns the fragment
                self.histories += 1
                have = json.dumps({"have": data.get("digest")})
                if self.states.get(element.bidi_component.id) != have:
                    self.states[element.bidi_component.id], self.told = have, fragment
            if step is not None:
                self.step = step
                self.first_seen.setdefault(step, time.perf_counter())
        elif kind == "radio" and "live_choice_merge" in element.radio.id:
            self.radio = (element.radio.id, fragment, element.radio.options[0])
        elif kind == "markdown" and "Your vote is counted" in element.markdown.body:
            self.counted = True

    async def run(self, until: asyncio.Event) -> None:
        async with websockets.connect(self.ws_url, subprotocols=["streamlit"], max_size=None) as ws:
            await ws.send(self._rerun())
            due: dict[str, float] = {}
            while not until.is_set():
                with contextlib.suppress(asyncio.TimeoutError):
                    self._read(await asyncio.wait_for(ws.recv(), 0.1))
                if self.told is not None:
                    await ws.send(self._rerun(self.told, auto=False))
                    self.told = None
                now = time.perf_counter()
                for fragment, interval in self.fragments.items():
                    if now >= due.setdefault(fragment, now + interval):
                        due[fragment] = now + interval
                        await ws.send(self._rerun(fragment))
                if self.radio is not None and not self.voted:
                    self.voted = True
                    await ws.send(self._rerun(self.radio[1], (self.radio[0], self.radio[2])))
