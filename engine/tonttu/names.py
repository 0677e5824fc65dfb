"""Every name of Workshop Tonttu's cards as a template, so the catalogues translate them.

The names live in ``cards.json`` (data, not code), where Babel does not look: each is
listed here with :func:`~engine.words.N_` and translated where text is made
(``words.gettext(name)``). The state, the events and the views keep the English
names; ``tests/engine/tonttu/test_tonttu_names.py`` fails when ``cards.json`` gains a
name this module does not list.
"""

from __future__ import annotations

from engine.words import N_

MATERIALS = (N_("Wood"), N_("Wool"), N_("Metal"), N_("Paint"), N_("Gold"))
"""T-1.2's material types."""

CATEGORIES = (N_("Toys"), N_("Clothing"), N_("Decorations"))
"""T-1.3's gift categories."""

GIFTS = (
    # Toys
    N_("Wooden Blocks"),
    N_("Spinning Top"),
    N_("Yo-Yo"),
    N_("Tin Whistle"),
    N_("Rocking Horse"),
    N_("Toy Boat"),
    N_("Toy Drum"),
    N_("Jack-in-the-Box"),
    N_("Rag Puppet"),
    N_("Toy Train"),
    N_("Dollhouse"),
    N_("Music Box"),
    # Clothing
    N_("Woolly Socks"),
    N_("Mittens"),
    N_("Knitted Cap"),
    N_("Clogs"),
    N_("Scarf"),
    N_("Sweater"),
    N_("Felt Boots"),
    N_("Belt"),
    N_("Shawl"),
    N_("Winter Coat"),
    N_("Party Dress"),
    N_("Apron"),
    # Decorations
    N_("Bell"),
    N_("Star Ornament"),
    N_("Tin Angel"),
    N_("Straw Goat"),
    N_("Lantern"),
    N_("Candle Holder"),
    N_("Wreath"),
    N_("Crown Ornament"),
    N_("Snow Globe"),
    N_("Tree Topper"),
    N_("Advent Calendar"),
    N_("Candle Arch"),
)
"""The 36 gift cards' names."""

MODES = {"tactical": N_("tactical"), "speed": N_("speed")}
"""The two modes (option ``mode``), as the board's heading names them."""

ROTATIONS = {"left": N_("left"), "right": N_("right")}
"""Where the rotation card points (T-2.4)."""
