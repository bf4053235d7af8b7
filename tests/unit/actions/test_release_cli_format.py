
from runner.cli.printers import ansic
from runner.encoding.uitable import render_table
from runner.release.codec import go_json


def test_ansic_pads_the_day_with_a_space_as_go():
    assert ansic("2026-11-03T04:05:06.123Z") == "Tue Nov  3 04:05:06 2026"


def test_table_pads_every_cell_and_separates_with_tabs():
    assert render_table([["A", "BB"], ["ccc", "d"]]) == "A  \tBB\nccc\td "




def test_records_are_written_as_go_json():
    assert go_json({"n": 1.0, "f": 0.5, "s": "<a&b>"}) == '{"n":1,"f":0.5,"s":"\\u003ca\\u0026b\\u003e"}'


def test_hide_secret_drops_only_secret_documents():
    from runner.actions.results import without_secrets

    manifest = ("---\n# Source: a/templates/s.yaml\napiVersion: v1\nkind: Secret\ndata: {p: eA==}\n"
                "---\n# Source: a/templates/c.yaml\napiVersion: v1\nkind: ConfigMap\n")
    assert without_secrets(manifest) == "---\n# Source: a/templates/c.yaml\napiVersion: v1\nkind: ConfigMap\n"
