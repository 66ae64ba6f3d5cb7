"""The live class through AppTest: a teacher starts it, students join with ?class=CODE, follow, vote; it ends."""

from __future__ import annotations

import pytest
from app_helpers import new_app, plain, player_data

from bpeviz.app import live


def start_class():
    teacher = new_app()
    teacher.run(timeout=120)
    teacher.button(key="live_start_button").click().run(timeout=120)
    assert not teacher.exception
    return teacher, teacher.session_state["live_code"]


def student(code: str, **state):
    at = new_app(live_class=code, **state)
    at.run(timeout=120)
    assert not at.exception
    return at


def test_a_teacher_starts_a_class_with_a_code_an_address_and_a_qr_code():
    teacher, code = start_class()
    panel = " ".join(m.value for m in teacher.sidebar.markdown)
    assert f"Class code: {code}" in panel
    assert any(f"/?class={code}" in c.value for c in teacher.sidebar.code)
    panel_box = teacher.sidebar.children[len(teacher.sidebar.children) - 1]
    images = [el for el in panel_box.children.values() if type(el).__name__ == "Image"]
    assert len(images) == 1  # the QR code, drawn here, nothing fetched
    assert any("0.0.0.0" in plain(c.value) for c in teacher.sidebar.caption)  # AppTest's server listens on loopback
    assert any(f"0 students in live class {code}" in m.value for m in teacher.main.markdown)  # the projector's banner


@pytest.mark.slow  # following the teacher stays in the quick run (a student who explores comes back)
def test_students_follow_the_teachers_settings_step_and_page():
    teacher, code = start_class()
    pupils = [student(code) for _ in range(3)]
    assert "3 students in live class" in " ".join(m.value for m in pupils[-1].markdown)
    teacher.session_state["vocab_size"] = 50
    teacher.session_state["step"] = 7
    teacher.run(timeout=120)
    for pupil in pupils:
        pupil.run(timeout=120)
        assert pupil.session_state["vocab_size"] == 50 and pupil.session_state["step"] == 7
        assert pupil.session_state["lang"] == "en"  # their own language stays theirs
    teacher.switch_page("bpeviz/app/pages/encode.py").run(timeout=120)
    pupils[0].run(timeout=120)
    assert pupils[0].title[0].value == teacher.title[0].value  # the teacher's page


def test_a_student_who_explores_comes_back_to_the_class():
    teacher, code = start_class()
    pupil = student(code)
    pupil.toggle(key="live_following").set_value(False).run(timeout=120)
    teacher.session_state["step"] = 4
    teacher.run(timeout=120)
    pupil.run(timeout=120)
    assert pupil.session_state["step"] == 0  # exploring: the teacher's step does not pull them
    pupil.toggle(key="live_following").set_value(True).run(timeout=120)
    pupil.run(timeout=120)
    assert pupil.session_state["step"] == 4


def vote_at_step_3(n_pupils: int):
    """A class of n pupils; the teacher at step 3 asks for the next merge. Returns the teacher, code, pupils, vote."""
    teacher, code = start_class()
    pupils = [student(code) for _ in range(n_pupils)]
    teacher.session_state["step"] = 3
    teacher.run(timeout=120)
    teacher.button(key="live_vote_merge").click().run(timeout=120)
    return teacher, code, pupils, live.rooms().vote(code)


@pytest.mark.slow  # a class of students in AppTest; the browser's live class checks votes too
def test_a_vote_on_the_next_merge_counts_each_student_once_and_ties_right():
    teacher, code, pupils, vote = vote_at_step_3(3)
    assert len(vote.right) == 3  # the toy corpus's fourth merge: three pairs tied at 6
    right, wrong = sorted(vote.right)[0], next(o for o in vote.options if o not in vote.right)
    for pupil, choice in zip(pupils, [right, right, wrong]):
        pupil.run(timeout=120)
        pupil.radio(key="live_choice_merge_3").set_value(choice).run(timeout=120)
    pupils[2].radio(key="live_choice_merge_3").set_value(wrong).run(timeout=120)  # the same vote again
    assert sum(live.rooms().vote(code).tally().values()) == 3
    teacher.run(timeout=120)
    teacher.button(key="live_reveal_merge").click().run(timeout=120)
    assert any("3 votes, 67% right" in s.value for s in teacher.success)
    pupils[0].run(timeout=120)
    assert any("You got it" in s.value for s in pupils[0].success)


def test_a_wrong_code_and_an_ended_class_say_so_in_the_students_language():
    pupil = student("ABCDE", lang="pt")
    assert any("Não há aula ao vivo com o código ABCDE" in plain(e.value) for e in pupil.error)
    teacher, code = start_class()
    pupil = student(code)
    teacher.button(key="live_end_button").click().run(timeout=120)
    pupil.run(timeout=120)
    assert any(f"The live class {code} has ended" in plain(i.value) for i in pupil.info)  # not "check the code"
    assert not pupil.error
    pupil.button(key="live_leave").click().run(timeout=120)
    assert pupil.session_state["live_class"] == "" and not pupil.info
    assert "live_code" not in teacher.session_state


def test_the_teacher_asks_which_tokens_a_sentence_becomes():
    teacher, code = start_class()
    pupil = student(code)
    teacher.switch_page("bpeviz/app/pages/encode.py").run(timeout=120)
    teacher.button(key="live_vote_tokens").click().run(timeout=120)
    vote = live.rooms().vote(code)
    assert vote.kind == "tokens" and len(vote.options) >= 2 and len(vote.right) == 1
    assert "o · ␣gato · ␣sub · iu · ␣no" in vote.right  # the README's example, as the trace ends
    pupil.run(timeout=120)
    assert "Which tokens will the sentence become?" in " ".join(m.value for m in pupil.markdown)


def test_vote_options_from_a_hostile_corpus_are_shown_inert():
    """Options are tokens of the teacher's corpus: Markdown in them is escaped in the answer and the radio's labels."""
    text = "![p](http://127.0.0.1:9/x) " * 40
    teacher = new_app(source="paste", pasted=text, vocab_size=60)
    teacher.run(timeout=120)
    teacher.button(key="live_start_button").click().run(timeout=120)
    code = teacher.session_state["live_code"]
    pupil = student(code)
    teacher.button(key="live_vote_merge").click().run(timeout=120)
    pupil.run(timeout=120)
    radio = pupil.radio(key="live_choice_merge_0")
    assert any("\\(" in label or "\\!" in label or "\\[" in label for label in radio.proto.options)
    radio.set_value(live.rooms().vote(code).options[0]).run(timeout=120)  # the widget's labels are the escaped text
    teacher.run(timeout=120)
    teacher.button(key="live_reveal_merge").click().run(timeout=120)
    pupil.run(timeout=120)
    shown = [m.value for m in [*teacher.success, *pupil.success, *pupil.info]]
    assert shown and all("](http" not in value for value in shown)


@pytest.mark.slow  # an open vote hiding the answer until the reveal stays in the quick run
def test_an_open_vote_holds_every_player_at_the_question_until_the_reveal():
    """The answer is not on screen while the class votes: no step past the question, for the teacher or a student."""
    teacher, code = start_class()
    pupil = student(code)
    teacher.session_state["step"] = 3
    teacher.run(timeout=120)
    assert player_data(teacher)["hold"] is None
    teacher.button(key="live_vote_merge").click().run(timeout=120)
    assert player_data(teacher)["hold"] == 3
    teacher.session_state["step"] = 9  # a link, a lesson file or a key press past the question
    teacher.run(timeout=120)
    assert player_data(teacher)["step"] == 3 and teacher.session_state["step"] == 3
    pupil.session_state["step"] = 7
    pupil.run(timeout=120)
    assert player_data(pupil)["hold"] == 3 and player_data(pupil)["step"] == 3
    teacher.button(key="live_reveal_merge").click().run(timeout=120)
    pupil.run(timeout=120)
    assert player_data(teacher)["hold"] is None and player_data(pupil)["hold"] is None


def test_an_open_vote_on_tokens_hides_the_final_tokens_until_the_reveal():
    teacher, code = start_class()
    pupil = student(code)
    teacher.switch_page("bpeviz/app/pages/encode.py").run(timeout=120)
    teacher.session_state["trace_step"] = 5
    teacher.run(timeout=120)
    before = len(teacher.subheader)
    teacher.button(key="live_vote_tokens").click().run(timeout=120)
    pupil.run(timeout=120)
    for at in (teacher, pupil):
        assert player_data(at, "player_trace")["hold"] == 0 and player_data(at, "player_trace")["step"] == 0
        assert any("final tokens and the comparison" in i.value for i in at.info)
    assert len(teacher.subheader) < before  # the final tokens and the real tokenizers are not drawn
    teacher.run(timeout=120)
    teacher.button(key="live_reveal_tokens").click().run(timeout=120)
    assert len(teacher.subheader) == before and player_data(teacher, "player_trace")["hold"] is None


def test_a_student_types_the_code_and_the_teacher_sees_the_nicknames():
    teacher, code = start_class()
    pupil = new_app()
    pupil.run(timeout=120)
    pupil.text_input(key="live_join_code").input(f" {code.lower()} ").run(timeout=120)  # as heard: lower case, spaces
    assert pupil.session_state["live_class"] == code
    pupil.text_input(key="live_nickname").input("**Ana**").run(timeout=120)
    assert live.rooms().follow(code)[2] == 1
    teacher.run(timeout=120)
    assert any("\\*\\*Ana\\*\\*" in c.value for c in teacher.caption)  # shown as typed, not as bold Markdown


def test_the_teachers_browser_keeps_the_class_key_and_forgets_it_at_the_end():
    teacher, code = start_class()
    kept = player_data(teacher, "live_keeper", "bpeviz.keeper")["store"]
    assert kept == {"code": code, "secret": teacher.session_state["live_secret"]}
    teacher.button(key="live_end_button").click().run(timeout=120)
    assert player_data(teacher, "live_keeper", "bpeviz.keeper") == {"forget": True}


def test_a_student_is_told_when_the_teachers_page_is_away():
    teacher, code = start_class()
    pupil = student(code)
    assert not pupil.warning
    live.rooms()._rooms[code].teacher_seen -= 60  # a minute without the teacher's page: reloading, asleep
    pupil.run(timeout=120)
    assert any("The teacher's page is away" in w.value for w in pupil.warning)
    teacher.run(timeout=120)  # back
    pupil.run(timeout=120)
    assert not any("away" in w.value for w in pupil.warning)


def test_peer_instruction_a_hidden_first_round_a_second_after_discussion_both_revealed():
    teacher, code, pupils, vote = vote_at_step_3(2)
    right, wrong = sorted(vote.right)[0], next(o for o in vote.options if o not in vote.right)
    for pupil, choice in zip(pupils, [right, wrong]):
        pupil.run(timeout=120)
        pupil.radio(key="live_choice_merge_3").set_value(choice).run(timeout=120)
    teacher.run(timeout=120)
    assert not teacher.get("arrow_vega_lite_chart") and any("2 votes so far" in c.value for c in teacher.caption)  # hidden
    teacher.button(key="live_revote_merge").click().run(timeout=120)
    again = live.rooms().vote(code)
    assert again.round == 2 and again.ballots == {} and again.first_tally()[right] == 1
    for pupil in pupils:  # everyone right after talking it over
        pupil.run(timeout=120)
        assert pupil.radio(key="live_choice_merge_3_r2").value is None  # a fresh ballot
        pupil.radio(key="live_choice_merge_3_r2").set_value(right).run(timeout=120)
    teacher.run(timeout=120)
    teacher.button(key="live_reveal_merge").click().run(timeout=120)
    assert any("Before discussing, 50% of 2 were right; after, 100% of 2" in s.value for s in teacher.success)
