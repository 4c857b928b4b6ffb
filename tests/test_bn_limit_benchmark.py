"""benchmarks/bn_limit.py's report of issue 44's 10^6-row target, on results made up here."""

from _benchmark_scripts import load_script


def _entry(case, model, rows, excess):
    return {"case": case, "model": model, "rows": rows, "excess": excess}


def test_targets_name_the_best_model_and_the_settings_that_meet_it_everywhere():
    bn_limit = load_script("bn_limit")
    done = {"bayes": {"a:X": {}, "b:Y": {}}}
    rows = [
        ("a:X", "steady", 10**6, 0.0002),
        ("a:X", "lucky", 10**6, 0.0001),
        ("a:X", "hgb", 10**6, 0.0003),
        ("a:X", "forest", 10**5, 0.0100),  # capped: its largest size counts
        ("b:Y", "steady", 10**6, 0.0004),
        ("b:Y", "lucky", 10**6, 0.0006),  # above HGB on this case
        ("b:Y", "hgb", 10**6, 0.0005),
        ("b:Y", "slow", 10**6, 0.0020),  # a model only here: beyond 0.001
    ]
    for case, model, size, excess in rows:
        done[f"{case}|{size}|{model}"] = _entry(case, model, size, excess)
    lines = bn_limit.targets(done)
    assert lines[0].startswith("a:X: best lucky +0.00010; forest +0.01000, hgb +0.00030; met")
    assert lines[1].startswith("b:Y: best steady +0.00040") and lines[1].endswith("; met")
    assert lines[2] == "one setting meeting it on every case: ['steady']"
    done["b:Y|1000000|steady"]["excess"] = 0.0007
    assert bn_limit.targets(done)[1].endswith("NOT met")
    assert bn_limit.targets(done)[2] == "one setting meeting it on every case: none"
