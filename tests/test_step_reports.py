"""A step control's report counts only for the view it was made in.

The browser tells the page the step once the presenter's keys pause (about
600 ms after the last one). A report of the training the presenter just
left can arrive after the page has drawn another training in the control's
place; seen in Chromium under load: Picky BPE's training stuck at "Step 59
of 146" after a switch from SuperBPE. The report is delivered here as the
browser would send it, without timing."""

from tests.apptest import component_data, open_page, tell_position

PICKY = "algorithms_stepper_picky"


def test_a_report_made_in_the_training_just_left_does_not_move_the_one_shown():
    at = open_page("pages/algorithms.py", query={"algorithms_stepped": "superbpe", "algorithms_step": "50"})
    superbpe_view = component_data(at)["viewKey"]
    at.button(key="algorithms_stepped_picky").click().run()
    picky = component_data(at)
    assert picky["step"] == 0 and picky["viewKey"] != superbpe_view

    at.session_state[PICKY] = {"position": {"step": 59, "speed": 1, "viewKey": superbpe_view}}  # sent late
    at.run()
    assert component_data(at)["step"] == 0
    assert "algorithms_step" not in at.query_params

    tell_position(at, PICKY, 59)  # a report made in Picky BPE's own view moves it
    assert component_data(at)["step"] == 59
    assert at.query_params["algorithms_step"] == "59"


def test_a_report_without_its_view_moves_nothing():
    """What a browser sends is checked: a report that names no view is not one the control made."""
    at = open_page("pages/algorithms.py", query={"algorithms_stepped": "picky"})
    at.session_state[PICKY] = {"position": {"step": 7, "speed": 1}}
    at.run()
    assert component_data(at)["step"] == 0
