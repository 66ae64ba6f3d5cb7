"""Live classes: rooms that students join with a short code, follow the teacher's lesson in, and vote in.

A plain class with no Streamlit import, kept in memory only (nothing is written to disk) and shared by
the server's sessions. The teacher holds a secret that alone changes the room; a student holds only an
id of their own. Rooms expire after IDLE_SECONDS without the teacher's page (30 minutes); at most MAX_ROOMS rooms,
OPENS_PER_ADDRESS opened an hour by one address, and MAX_STUDENTS students a room.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from bpeviz.core.errors import BpevizError

CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud and typed on a phone
CODE_LENGTH = 5
MAX_ROOMS = 30
MAX_STUDENTS = 60
IDLE_SECONDS = 30 * 60.0  # a room whose teacher's page has been silent this long is gone (the page polls every 2 s)
OPENS_PER_ADDRESS = 5  # classes one address may open an hour: one script cannot fill the server's rooms
OPEN_WINDOW_SECONDS = 3600.0
STUDENT_IDLE_SECONDS = 30.0  # a student's page silent this long (closed, asleep) frees its seat; it comes back on return
TEACHER_AWAY_SECONDS = 10.0  # no answer from the teacher's page this long: students are told it is away
MAX_NICKNAME = 24
MAX_LESSON_BYTES = 200_000  # what a room keeps of the teacher's lesson values
MAX_OPTIONS = 12


def clean_code(code: object) -> str:
    """A code as typed: upper case, spaces and dashes dropped. Example: clean_code(" ab-c2d ") -> "ABC2D" """
    return "".join(ch for ch in str(code).upper() if ch in CODE_LETTERS)[:CODE_LENGTH * 2]


def clean_nickname(name: object) -> str:
    """A nickname kept as text (escaped where it is shown), one line, at most MAX_NICKNAME characters."""
    return " ".join(str(name or "").split())[:MAX_NICKNAME]


@dataclass
class Vote:
    """A question with options; each student's latest choice counts once."""

    kind: str  # "merge" (the next merge) or "tokens" (what a sentence becomes)
    step: int
    options: tuple[str, ...]
    right: frozenset[str]  # every option that counts as right (ties count)
    ballots: dict[str, str] = field(default_factory=dict)  # student id -> option
    revealed: bool = False
    round: int = 1  # 2 once the teacher asked again after a discussion (peer instruction)
    first: tuple[str, ...] | None = None  # round 1's ballots' choices, kept for the side-by-side reveal

    def tally(self) -> dict[str, int]:
        counted = Counter(self.ballots.values())
        return {option: counted[option] for option in self.options}

    def share_right(self) -> float:
        return sum(choice in self.right for choice in self.ballots.values()) / len(self.ballots) if self.ballots else 0.0

    def first_tally(self) -> dict[str, int]:
        counted = Counter(self.first or ())
        return {option: counted[option] for option in self.options}

    def first_share_right(self) -> float:
        return sum(choice in self.right for choice in self.first) / len(self.first) if self.first else 0.0


@dataclass
class Room:
    code: str
    secret: str
    lesson: dict = field(default_factory=dict)
    version: int = 0  # goes up with every change a student should follow
    touched: float = 0.0
    teacher_seen: float = 0.0  # the last time the teacher's page answered (its banner polls every 2 s)
    students: dict[str, str] = field(default_factory=dict)  # student id -> nickname
    seen: dict[str, float] = field(default_factory=dict)  # student id -> their page's last poll (once a second)
    vote: Vote | None = None


class Rooms:
    """Every live room on this server, behind one lock."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, max_rooms: int = MAX_ROOMS,
                 max_students: int = MAX_STUDENTS) -> None:
        self._rooms: dict[str, Room] = {}
        self._opened: dict[str, list[float]] = {}  # address -> when it opened its classes this past hour
        self._lock = threading.Lock()
        self.clock, self.max_rooms, self.max_students = clock, max_rooms, max_students

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._rooms)

    def _expire(self) -> None:
        now = self.clock()
        for code in [c for c, room in self._rooms.items() if now - room.touched > IDLE_SECONDS]:
            del self._rooms[code]

    def _get(self, code: str) -> Room:
        self._expire()
        room = self._rooms.get(clean_code(code))
        if room is None:
            raise BpevizError("class_unknown", f"There is no live class with the code {clean_code(code)!r} (it may have "
                              "ended): check the code with your teacher.", class_code=clean_code(code))
        return room

    def _teacher(self, code: str, secret: str) -> Room:
        room = self._get(code)
        if not secrets.compare_digest(room.secret, str(secret)):
            raise BpevizError("class_not_teacher", "Only the teacher who started this class can change it.")
        room.touched = room.teacher_seen = self.clock()
        return room

    def open(self, address: str = "") -> tuple[str, str]:
        """A new room: (its code, the teacher's secret). BpevizError when the server has MAX_ROOMS already, or when
        `address` (the visitor's, as the server sees it) opened OPENS_PER_ADDRESS this past hour."""
        with self._lock:
            self._expire()
            now = self.clock()
            recent = [when for when in self._opened.get(address, []) if now - when < OPEN_WINDOW_SECONDS]
            if len(recent) >= OPENS_PER_ADDRESS:
                raise BpevizError("class_too_many_opens", f"This computer has opened {OPENS_PER_ADDRESS} live classes in "
                                  "the past hour, the most it may; end one or reopen the one you have.", cap=OPENS_PER_ADDRESS)
            self._opened = {a: w for a, w in self._opened.items() if any(now - t < OPEN_WINDOW_SECONDS for t in w)}
            self._opened[address] = [*recent, now]
            if len(self._rooms) >= self.max_rooms:
                raise BpevizError("class_full_server", f"This server already holds {self.max_rooms} live classes; end one "
                                  "or wait until one ends.", cap=self.max_rooms)
            code = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
            while code in self._rooms:
                code = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
            room = Room(code, secrets.token_urlsafe(24), touched=self.clock(), teacher_seen=self.clock())
            self._rooms[code] = room
            return code, room.secret

    def close(self, code: str, secret: str) -> None:
        """End the class: the room and its votes are gone."""
        with self._lock:
            room = self._teacher(code, secret)
            del self._rooms[room.code]

    def _active(self, room: Room) -> list[str]:
        """The students whose page polled lately: the seats taken."""
        now = self.clock()
        return [s for s in room.students if now - room.seen.get(s, 0.0) <= STUDENT_IDLE_SECONDS]

    def join(self, code: str, student: str, nickname: str = "") -> int:
        """Let a student in (again); returns how many seats are taken. BpevizError for a wrong code or a full room.

        A seat is a student id (kept in the browser: a reload keeps it); a page silent for STUDENT_IDLE_SECONDS frees it.
        """
        with self._lock:
            room = self._get(code)
            active = self._active(room)
            if student not in active and len(active) >= self.max_students:
                raise BpevizError("class_full", f"This class has {self.max_students} students already, the most a class "
                                  "takes.", cap=self.max_students)
            room.students[student], room.seen[student] = clean_nickname(nickname), self.clock()
            if len(room.students) > 4 * self.max_students:  # idle seats kept for a return, but not without end
                for gone in sorted(room.students, key=lambda s: room.seen.get(s, 0.0))[:len(room.students) - self.max_students]:
                    room.students.pop(gone, None)
                    room.seen.pop(gone, None)
            return len(self._active(room))

    def leave(self, code: str, student: str) -> None:
        with self._lock:
            room = self._rooms.get(clean_code(code))
            if room is not None:
                room.students.pop(student, None)
                room.seen.pop(student, None)
                if room.vote is not None:
                    room.vote.ballots.pop(student, None)

    def publish(self, code: str, secret: str, lesson: dict) -> int:
        """The teacher's lesson values now (corpus, settings, step, sentence); the version goes up when they change."""
        size = sum(len(str(k)) + len(str(v)) for k, v in lesson.items())
        if size > MAX_LESSON_BYTES:
            raise BpevizError("class_lesson_big", f"This lesson is too large to share live ({size:,} characters, at most "
                              f"{MAX_LESSON_BYTES:,}): paste less text.", size=size, cap=MAX_LESSON_BYTES)
        with self._lock:
            room = self._teacher(code, secret)
            if room.lesson != lesson:
                room.lesson = dict(lesson)
                room.version += 1
            return room.version

    def teacher_here(self, code: str, secret: str) -> None:
        """The teacher's page is open (its poll, or a reload that gives the class back); BpevizError when the room is
        gone or the secret is not its."""
        with self._lock:
            self._teacher(code, secret)

    def teacher_away(self, code: str) -> bool:
        """Whether the teacher's page has not answered for TEACHER_AWAY_SECONDS (closed, reloading, asleep)."""
        with self._lock:
            return self.clock() - self._get(code).teacher_seen > TEACHER_AWAY_SECONDS

    def nicknames(self, code: str, secret: str) -> list[str]:
        """The nicknames students gave, sorted, for their teacher only (a student without one is not listed)."""
        with self._lock:
            room = self._teacher(code, secret)
            return sorted(name for s in self._active(room) if (name := room.students[s]))

    def follow(self, code: str, student: str | None = None) -> tuple[int, dict, int]:
        """What a student's page follows: (version, the teacher's lesson values, how many seats are taken).

        A student's poll keeps its seat (a student back after a sleep has it again if there is room).
        """
        with self._lock:
            room = self._get(code)
            active = self._active(room)
            if student is not None and student in room.students and (student in active or len(active) < self.max_students):
                room.seen[student] = self.clock()
            return room.version, dict(room.lesson), len(self._active(room))

    def open_vote(self, code: str, secret: str, kind: str, step: int, options: list[str], right: list[str]) -> None:
        """Ask the class; a new vote replaces the one before."""
        options = list(dict.fromkeys(str(o) for o in options))[:MAX_OPTIONS]
        if not options or not set(right) & set(options):
            raise BpevizError("class_vote_options", "A vote needs options, one of them right.")
        with self._lock:
            room = self._teacher(code, secret)
            room.vote = Vote(kind, step, tuple(options), frozenset(right) & frozenset(options))
            room.version += 1

    def cast(self, code: str, student: str, option: str) -> None:
        """A student's choice; a later one replaces it (each student counts once)."""
        with self._lock:
            room = self._get(code)
            if student not in room.students:
                raise BpevizError("class_not_joined", "Join the class before voting.")
            vote = room.vote
            if vote is None or vote.revealed:
                raise BpevizError("class_no_vote", "There is no open vote now.")
            if option not in vote.options:
                raise BpevizError("class_bad_option", "That is not one of the vote's options.")
            vote.ballots[student] = option

    def revote(self, code: str, secret: str) -> None:
        """Peer instruction: round 1's ballots kept aside (hidden), the class votes again after discussing."""
        with self._lock:
            room = self._teacher(code, secret)
            vote = room.vote
            if vote is None or vote.revealed or vote.round > 1:
                raise BpevizError("class_no_vote", "There is no open vote now.")
            vote.first, vote.ballots, vote.round = tuple(vote.ballots.values()), {}, 2
            room.version += 1

    def reveal(self, code: str, secret: str) -> None:
        with self._lock:
            room = self._teacher(code, secret)
            if room.vote is None:
                raise BpevizError("class_no_vote", "There is no open vote now.")
            room.vote.revealed = True
            room.version += 1

    def vote(self, code: str) -> Vote | None:
        """A copy of the room's vote, for drawing."""
        with self._lock:
            vote = self._get(code).vote
            if vote is None:
                return None
            return Vote(vote.kind, vote.step, vote.options, vote.right, dict(vote.ballots), vote.revealed, vote.round,
                        vote.first)
