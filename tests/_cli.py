"""Running the ``bnclassify`` command in-process, and what its one-line errors look like."""

from bnclassify.study.cli import main


def run_cli(capsys, *argv):
    """``(exit code, stdout, stderr)`` of ``bnclassify ARGV``."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code, err, *fragments):
    """Exit code 2 and one ``bnclassify: error: ...`` line holding every fragment."""
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("bnclassify: error: ")
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0]
