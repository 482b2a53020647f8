"""tiny_eval's own tests, in the same session as the conformance cases."""

from tiny_eval import lcb


def test_extracts_the_fenced_program():
    answer = "Here it is:\n```python\nprint(1)\n```\n"
    assert lcb.extract_code(answer, style="generic") == "print(1)"
