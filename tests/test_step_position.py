"""Where a step control stands after the presenter moves between trainings:
each training keeps its own step, and an address bar the browser has not
caught up with yet moves no control."""

from tests.apptest import component_data, open_page


def test_a_stale_address_bar_does_not_move_the_control_the_presenter_switched_to():
    """The browser's report of the control just left (SuperBPE's, sent as
    its keys pause) comes with the address bar as that control last wrote
    it, step and all; the run it asks for must still show Picky BPE's
    training from its start. (Seen in Chromium under load: Picky BPE
    opened at "Step 91".)"""
    at = open_page("pages/algorithms.py", query={"algorithms_stepped": "superbpe", "algorithms_step": "50"})
    assert component_data(at)["step"] == 50
    at.button(key="algorithms_stepped_picky").click().run()
    assert component_data(at)["step"] == 0
    at.query_params["algorithms_step"] = "91"  # what the old control had written in the address bar
    at.run()
    assert component_data(at)["step"] == 0


def test_each_training_keeps_its_own_step():
    at = open_page("pages/algorithms.py", query={"algorithms_stepped": "superbpe", "algorithms_step": "50"})
    at.button(key="algorithms_stepped_picky").click().run()
    at.button(key="algorithms_stepped_superbpe").click().run()
    assert component_data(at)["step"] == 50
    assert at.query_params["algorithms_step"] == "50"  # and the link says so
