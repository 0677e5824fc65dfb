"""Every name of Santa's Workshop that a player reads, marked for translation.

The names themselves live in ``components.json`` (toys, ornament colours and
rewards, tree spaces) or in the rules (stations, materials); the engine's states,
events and views keep the English name, which is the template. This module lists
each one with ``N_`` so that ``python -m i18n update`` extracts it (a test checks
that every name in the component file is listed here), and is translated where text
is made: ``words.gettext(name)``. Reindeer names are proper names: never translated.

German needs a few names inside phrases whose words change with the name (an
article with a station, an inflected colour with an ornament), so those phrases are
listed whole, per station and per colour.
"""

from __future__ import annotations

from engine.words import ENGLISH, N_, Words

MATERIAL_NAMES: dict[str, str] = {
    "wood": N_("Wood"),
    "metal": N_("Metal"),
    "fabric": N_("Fabric"),
    "assembly": N_("Assembly"),
}
"""A material's name as a game word (``Term``), by its id (W-1.4)."""

STATION_NAMES: dict[str, str] = {
    "wood": N_("Wood Shop"),
    "metal": N_("Metal Shop"),
    "fabric": N_("Fabric Shop"),
    "assembly": N_("Assembly Hall"),
    "donation": N_("Donation Center"),
    "mail3": N_("Mail Room (up to 3 toys)"),
    "mail2": N_("Mail Room (up to 2 toys)"),
    "stables": N_("Reindeer Stables"),
    "tree1": N_("Christmas Tree (1st station)"),
    "tree2": N_("Christmas Tree (2nd station)"),
}
"""A station's name, by its id (W-3)."""

AT_STATION: dict[str, str] = {
    "wood": N_("at the Wood Shop"),
    "metal": N_("at the Metal Shop"),
    "fabric": N_("at the Fabric Shop"),
    "assembly": N_("at the Assembly Hall"),
    "donation": N_("at the Donation Center"),
    "mail3": N_("at the Mail Room (up to 3 toys)"),
    "mail2": N_("at the Mail Room (up to 2 toys)"),
    "stables": N_("at the Reindeer Stables"),
    "tree1": N_("at the Christmas Tree (1st station)"),
    "tree2": N_("at the Christmas Tree (2nd station)"),
}
"""Where an Elf stands: the station with its preposition and article."""

SPACES: tuple[str, ...] = (
    N_("1st space"),
    N_("2nd space"),
    N_("3rd space"),
    N_("4th space"),
    N_("5th space"),
    N_("6th space"),
)
"""A station's spaces, in order (W-3)."""

TOY_NAMES: tuple[str, ...] = (
    N_("Wooden Blocks"),
    N_("Spinning Top"),
    N_("Toy Boat"),
    N_("Tin Soldier"),
    N_("Jingle Bell"),
    N_("Harmonica"),
    N_("Rag Doll"),
    N_("Sock Puppet"),
    N_("Bean Bag"),
    N_("Yo-Yo"),
    N_("Wind-up Mouse"),
    N_("Kite"),
    N_("Hobby Horse"),
    N_("Jack-in-the-Box"),
    N_("String Puppet"),
    N_("Toy Train"),
    N_("Red Wagon"),
    N_("Doll House"),
    N_("Puppet Theater"),
    N_("Roller Skates"),
    N_("Toy Robot"),
    N_("Rocking Horse"),
    N_("Sled"),
    N_("Xylophone"),
    N_("Tricycle"),
    N_("Telescope"),
    N_("Scooter"),
    N_("Teddy Bear"),
    N_("Plush Reindeer"),
    N_("Magic Kit"),
    N_("Toy Castle"),
    N_("Pirate Ship"),
    N_("Race Car"),
    N_("Bicycle"),
    N_("Giant Teddy"),
    N_("Circus Tent"),
    N_("Train Set"),
    N_("Fire Truck"),
    N_("Rocket Ship"),
    N_("Dollhouse Mansion"),
    N_("Marionette Stage"),
    N_("Rocking Sleigh"),
    N_("Robot Dog"),
    N_("Hot Air Balloon"),
    N_("Carousel"),
)
"""The toy cards' names (W-8)."""

COLOURS: dict[str, str] = {
    "red": N_("red"),
    "gold": N_("gold"),
    "silver": N_("silver"),
    "blue": N_("blue"),
    "green": N_("green"),
}
"""An ornament colour on its own (a label: "Ornaments left: red 5")."""

A_ORNAMENT: dict[str, str] = {
    "red": N_("a red ornament"),
    "gold": N_("a gold ornament"),
    "silver": N_("a silver ornament"),
    "blue": N_("a blue ornament"),
    "green": N_("a green ornament"),
}
THE_ORNAMENT: dict[str, str] = {
    "red": N_("the red ornament"),
    "gold": N_("the gold ornament"),
    "silver": N_("the silver ornament"),
    "blue": N_("the blue ornament"),
    "green": N_("the green ornament"),
}
ORNAMENT: dict[str, str] = {
    "red": N_("red ornament"),
    "gold": N_("gold ornament"),
    "silver": N_("silver ornament"),
    "blue": N_("blue ornament"),
    "green": N_("green ornament"),
}
"""An ornament of a colour in a sentence: the colour inflects in German."""

REWARD_LABELS: tuple[str, ...] = (
    N_("3 points"),
    N_("2 Materials of choice"),
    N_("2 Assembly"),
    N_("1 Toy card"),
    N_("1 Material of choice + 1 point"),
)
"""The ornament rewards (W-3.5)."""

TREE_SPACE_LABELS: tuple[str, ...] = (
    N_("Star: 3 points"),
    N_("2 points"),
    N_("1 Wood"),
    N_("1 Metal"),
    N_("1 Fabric"),
    N_("1 Assembly"),
)
"""The tree spaces (W-3.5)."""

REASON_NAMES: dict[str, str] = {
    "toy": N_("toy"),
    "cooperation": N_("cooperation"),
    "donation": N_("donation"),
    "ornament": N_("ornament"),
    "tree": N_("tree"),
    "inspection": N_("inspection"),
    "unfinished": N_("unfinished"),
    "reindeer": N_("reindeer"),
}
"""Why points were scored (W-6.3), by reason id."""


def ornament(colour: str, phrases: dict[str, str], words: Words = ENGLISH) -> str:
    """An ornament of ``colour`` from one of the phrase tables above (``A_ORNAMENT``,
    ``THE_ORNAMENT``, ``ORNAMENT``); a colour the tables lack (another component
    file) is said in English."""
    phrase = phrases.get(colour)
    if phrase is not None:
        return words.gettext(phrase)
    return phrases["red"].replace("red", colour)


def material(name: str, words: Words = ENGLISH) -> str:
    """A material's name by its id (``wood`` → "Wood")."""
    return words.gettext(MATERIAL_NAMES.get(name, name.capitalize()))
