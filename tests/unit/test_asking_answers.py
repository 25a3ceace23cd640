"""How a text answer becomes a form's value, the one reading the CLI's `--answer`, its terminal prompt and the Run
page's form share: a field's choices in each shape the spec gives them (`enum`, `enum` with `enumNames`, `oneOf`
and `anyOf` of `const` and `title`), chosen by value or by title; a multi-select; a yes/no; a number. A value the
field refuses is None, and a form missing a required field is cancelled, never filled in by guess."""

from __future__ import annotations

import anyio
import pytest

from flow import field_choices
from flow.engine.host import GivenAnswers, Question, form_values, typed_value

CITY_ENUM = {"type": "string", "enum": ["北京", "上海"], "enumNames": ["Beijing", "Shanghai"]}
CITY_ONE_OF = {"type": "string", "oneOf": [{"const": "bj", "title": "北京"}, {"const": "sh", "title": "上海"}]}
CITY_ANY_OF = {"type": "string", "anyOf": [{"const": "bj", "title": "北京"}, {"const": "sh"}]}
LEVEL = {"type": "integer", "enum": [1, 2, 3]}
CITIES = {"type": "array", "items": CITY_ONE_OF}


def test_every_shape_of_choices_gives_its_values_and_titles():
    assert field_choices(CITY_ENUM) == (["北京", "上海"], {"北京": "Beijing", "上海": "Shanghai"})
    assert field_choices(CITY_ONE_OF) == (["bj", "sh"], {"bj": "北京", "sh": "上海"})
    assert field_choices(CITY_ANY_OF) == (["bj", "sh"], {"bj": "北京", "sh": "sh"})
    assert field_choices({"type": "string"}) is None
    assert field_choices({"type": "string", "oneOf": [{"title": "no const"}]}) is None


@pytest.mark.parametrize(
    ("prop", "text", "value"),
    [
        (CITY_ENUM, "上海", "上海"),
        (CITY_ENUM, "Shanghai", "上海"),  # by its title
        (CITY_ENUM, "广州", None),
        (CITY_ONE_OF, "sh", "sh"),
        (CITY_ONE_OF, "北京", "bj"),
        (CITY_ANY_OF, "sh", "sh"),
        (LEVEL, "2", 2),
        (LEVEL, "4", None),
        (CITIES, "北京, sh", ["bj", "sh"]),
        (CITIES, "北京, 广州", None),
        ({"type": "boolean"}, "是", True),
        ({"type": "boolean"}, "maybe", None),
        ({"type": "number"}, "2.5", 2.5),
        ({"type": "integer"}, "2.5", None),
        ({"type": "string"}, "随便", "随便"),
    ],
)
def test_a_text_answer_is_typed_as_its_field_takes_it(prop, text, value):
    assert typed_value(prop, text) == value


def test_a_form_missing_a_required_field_is_cancelled_not_guessed():
    schema = {"type": "object", "properties": {"city": CITY_ONE_OF, "days": LEVEL}, "required": ["city"]}
    assert form_values(schema, {"city": "上海", "days": "3"}) == ({"city": "sh", "days": 3}, [])
    assert form_values(schema, {"city": "广州"}) == ({}, ["city"])
    question = Question("Which city?", "form", schema)
    answered = anyio.run(GivenAnswers({"city": "北京"}).__call__, question)
    assert (answered.action, answered.content) == ("accept", {"city": "bj"})
    assert anyio.run(GivenAnswers({"days": "2"}).__call__, question).action == "cancel"
