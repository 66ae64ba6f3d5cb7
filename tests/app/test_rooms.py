"""The live class's room store (bpeviz/app/rooms.py), without a server: codes, secrets, caps, expiry, votes."""

from __future__ import annotations

import pytest

from bpeviz.app import rooms as rooms_module
from bpeviz.app.rooms import Rooms, clean_code, clean_nickname
from bpeviz.core.errors import BpevizError


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_room_is_changed_by_its_teacher_only():
    rooms = Rooms()
    code, secret = rooms.open()
    other_code, other_secret = rooms.open()
    assert len(code) == rooms_module.CODE_LENGTH and code != other_code
    rooms.publish(code, secret, {"step": 3})
    with pytest.raises(BpevizError) as caught:
        rooms.publish(code, other_secret, {"step": 9})  # another room's teacher
    assert caught.value.code == "class_not_teacher"
    with pytest.raises(BpevizError):
        rooms.publish(code, "", {"step": 9})
    rooms.join(code, "s1")
    assert rooms.follow(code)[1] == {"step": 3} and rooms.follow(other_code)[1] == {}
    assert rooms.follow(clean_code(code.lower()))[1] == {"step": 3}  # typed in lower case


def test_versions_move_only_when_the_lesson_changes():
    rooms = Rooms()
    code, secret = rooms.open()
    first = rooms.publish(code, secret, {"step": 1})
    assert rooms.publish(code, secret, {"step": 1}) == first
    assert rooms.publish(code, secret, {"step": 2}) == first + 1


def test_a_wrong_or_expired_code_says_so():
    clock = Clock()
    rooms = Rooms(clock=clock)
    code, secret = rooms.open()
    with pytest.raises(BpevizError, match="no live class with the code 'ZZZZZ'"):
        rooms.join("zzzzz", "s1")
    clock.now += rooms_module.IDLE_SECONDS - 1
    rooms.publish(code, secret, {"step": 1})  # the teacher's activity keeps it open
    clock.now += rooms_module.IDLE_SECONDS - 1
    rooms.join(code, "s1")
    clock.now += 2
    with pytest.raises(BpevizError) as caught:
        rooms.follow(code)
    assert caught.value.code == "class_unknown" and len(rooms) == 0


def test_caps_on_rooms_and_students():
    rooms = Rooms(max_rooms=2, max_students=3)
    code, _ = rooms.open()
    rooms.open()
    with pytest.raises(BpevizError, match="2 live classes"):
        rooms.open()
    for k in range(3):
        rooms.join(code, f"s{k}")
    rooms.join(code, "s0")  # coming back is not a new student
    with pytest.raises(BpevizError, match="3 students already"):
        rooms.join(code, "s9")


def test_each_student_counts_once_and_ties_count_right():
    rooms = Rooms()
    code, secret = rooms.open()
    for k in range(4):
        rooms.join(code, f"s{k}")
    rooms.open_vote(code, secret, "merge", 5, ["a + b", "c + d", "e + f"], ["a + b", "c + d"])
    rooms.cast(code, "s0", "e + f")
    rooms.cast(code, "s0", "a + b")  # changed their mind: still one vote
    rooms.cast(code, "s1", "c + d")
    rooms.cast(code, "s2", "e + f")
    vote = rooms.vote(code)
    assert vote.tally() == {"a + b": 1, "c + d": 1, "e + f": 1} and vote.share_right() == pytest.approx(2 / 3)
    with pytest.raises(BpevizError, match="not one of"):
        rooms.cast(code, "s3", "x + y")
    with pytest.raises(BpevizError, match="Join the class"):
        rooms.cast(code, "intruder", "a + b")
    rooms.reveal(code, secret)
    with pytest.raises(BpevizError, match="no open vote"):
        rooms.cast(code, "s3", "a + b")
    rooms.leave(code, "s2")
    assert rooms.vote(code).tally()["e + f"] == 0


def test_ending_a_class_forgets_it():
    rooms = Rooms()
    code, secret = rooms.open()
    rooms.join(code, "s1")
    rooms.open_vote(code, secret, "merge", 0, ["a + b"], ["a + b"])
    with pytest.raises(BpevizError):
        rooms.close(code, "wrong")
    rooms.close(code, secret)
    assert len(rooms) == 0
    with pytest.raises(BpevizError):
        rooms.vote(code)


def test_nicknames_and_lessons_are_bounded():
    assert clean_nickname("  ![x](http://e)\n<b>" + "y" * 100) == ("![x](http://e) <b>" + "y" * 100)[:rooms_module.MAX_NICKNAME]
    rooms = Rooms()
    code, secret = rooms.open()
    with pytest.raises(BpevizError, match="too large"):
        rooms.publish(code, secret, {"pasted": "x" * (rooms_module.MAX_LESSON_BYTES + 1)})


def test_students_learn_when_the_teachers_page_is_away_and_the_key_gives_the_class_back():
    clock = Clock()
    rooms = Rooms(clock=clock)
    code, secret = rooms.open()
    assert not rooms.teacher_away(code)
    clock.now = rooms_module.TEACHER_AWAY_SECONDS + 1  # the teacher's tab reloads, or the laptop sleeps
    assert rooms.teacher_away(code)
    with pytest.raises(BpevizError) as caught:
        rooms.teacher_here(code, "a guess")  # a student cannot take the class with a made-up key
    assert caught.value.code == "class_not_teacher" and rooms.teacher_away(code)
    rooms.teacher_here(code, secret)  # the browser's kept key (app/reclaim.py)
    assert not rooms.teacher_away(code)
    rooms.close(code, secret)
    with pytest.raises(BpevizError) as caught:
        rooms.teacher_here(code, secret)  # an ended class is not given back
    assert caught.value.code == "class_unknown"


def test_a_silent_page_frees_its_seat_and_a_student_back_takes_it_again():
    clock = Clock()
    rooms = Rooms(clock=clock, max_students=2)
    code, _ = rooms.open()
    assert rooms.join(code, "ana-000000") == 1 and rooms.join(code, "bia-000000") == 2
    with pytest.raises(BpevizError):
        rooms.join(code, "caio-00000")  # full
    clock.now = rooms_module.STUDENT_IDLE_SECONDS - 1
    assert rooms.follow(code, "ana-000000")[2] == 2  # Ana's page polls; Bia's tab is closed
    clock.now = rooms_module.STUDENT_IDLE_SECONDS + 5
    assert rooms.follow(code, "ana-000000")[2] == 1  # Bia's seat is free again
    assert rooms.join(code, "caio-00000") == 2  # and Caio takes it
    assert rooms.follow(code, "bia-000000")[2] == 2  # Bia back from a sleep: no seat while the class is full
    assert rooms.join(code, "ana-000000", "Ana") == 2  # a reload with the browser's kept id: the same seat, not a third


def test_one_address_cannot_fill_the_servers_rooms_and_a_silent_teacher_frees_theirs():
    clock = Clock()
    rooms = Rooms(clock=clock)
    for _ in range(rooms_module.OPENS_PER_ADDRESS):
        rooms.open("10.0.0.66")
    with pytest.raises(BpevizError) as caught:
        rooms.open("10.0.0.66")  # a script opening rooms in a loop
    assert caught.value.code == "class_too_many_opens"
    code, secret = rooms.open("10.0.0.7")  # a teacher elsewhere still starts a class
    clock.now += rooms_module.IDLE_SECONDS - 60
    rooms.teacher_here(code, secret)  # their page polls
    clock.now += 120
    assert len(rooms) == 1  # the script's rooms, their pages silent, are gone; the teacher's stays
    clock.now += rooms_module.OPEN_WINDOW_SECONDS
    rooms.open("10.0.0.66")  # an hour later the address may open again
