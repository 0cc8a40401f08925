"""Words and inflection of the toy German -> English grammar (see :mod:`transviz.core.data.toy_de_en`).

Everything is lowercase. Nouns carry semantic tags, and verbs and adjectives name the tags they
combine with, so that sentences stay sensible ("trinkt ein bier", never "trinkt ein haus").

German morphology covered: the present tense of regular, stem-changing and separable verbs, five
modal verbs, the copula, and noun phrases in the nominative and accusative with the definite
article, the indefinite article, "kein" and possessives, with adjective endings that agree
(ein großer hund / einen großen hund / eine große katze / ein großes haus / den großen hund).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Gender = Literal["m", "f", "n"]
Case = Literal["nom", "acc"]
Person = Literal["1sg", "2sg", "3sg", "1pl", "3pl"]


@dataclass(frozen=True)
class Noun:
    german: str
    gender: Gender
    english: str
    tags: frozenset[str]


@dataclass(frozen=True)
class Adjective:
    german: str  # as in a dictionary (and after "ist")
    stem: str  # what the endings attach to ("teuer" -> "teur")
    english: str
    tags: frozenset[str]  # nouns it may describe


@dataclass(frozen=True)
class Verb:
    """A transitive verb; ``particle`` is set for separable verbs ("rufe ... an")."""

    infinitive: str  # "anrufen": the form after a modal and, conjugated, at the end of a clause
    forms: tuple[str, str, str, str]  # present tense, 1sg 2sg 3sg plural, without the particle
    english: tuple[str, str]  # base form and third person singular ("call", "calls")
    tags: frozenset[str]  # the objects it takes
    particle: str = ""

    def finite(self, person: Person) -> str:
        return self.forms[_FORM_INDEX[person]]

    def final(self, person: Person) -> str:
        """The finite verb at the end of a subordinate clause: the particle joins it ("anruft")."""
        return self.particle + self.finite(person)

    def english_form(self, person: Person) -> str:
        return self.english[1] if person == "3sg" else self.english[0]


@dataclass(frozen=True)
class Modal:
    """A modal verb and how English says it affirmed, negated, and in a question."""

    forms: tuple[str, str, str, str]
    affirmative: tuple[str, str]  # before the infinitive: base / third person singular ("want to", "wants to")
    negated: tuple[str, str]  # "do not want to", "does not want to"
    question: tuple[str, str]  # before the subject: "do" / "does" (+ "want to" after it) or "can"
    after_subject: str  # what follows the subject in a question: "want to", or "" for "can"

    def finite(self, person: Person) -> str:
        return self.forms[_FORM_INDEX[person]]

    def pick(self, pair: tuple[str, str], person: Person) -> str:
        return pair[1] if person == "3sg" else pair[0]


@dataclass(frozen=True)
class Subject:
    german: str
    english: str
    person: Person


_FORM_INDEX = {"1sg": 0, "2sg": 1, "3sg": 2, "1pl": 3, "3pl": 3}


def _regular(stem: str) -> tuple[str, str, str, str]:
    """Present tense of a regular verb; stems ending in t or d take a linking e (findest, findet)."""
    link = "e" if stem.endswith(("t", "d")) else ""
    return (stem + "e", stem + link + "st", stem + link + "t", stem + "en")


def _tags(text: str) -> frozenset[str]:
    return frozenset(text.split())


# -- nouns --------------------------------------------------------------------------------------

_NOUN_TABLE = """
bier n beer drink | wein m wine drink | kaffee m coffee drink | tee m tea drink | saft m juice drink
wasser n water drink | limonade f lemonade drink | cola f cola drink | kakao m cocoa drink
apfel m apple food | kuchen m cake food | brötchen n roll food | suppe f soup food cookable
pizza f pizza food | banane f banana food | salat m salad food | ei n egg food cookable
wurst f sausage food cookable | orange f orange food | tomate f tomato food | birne f pear food
keks m biscuit food | sandwich n sandwich food | karotte f carrot food | zitrone f lemon food
buch n book thing reading writable | zeitung f newspaper thing reading | brief m letter thing reading writable
zeitschrift f magazine thing reading | tasche f bag thing container | schlüssel m key thing
uhr f watch thing | handy n phone thing device | ball m ball thing | kiste f box thing container
flasche f bottle thing container | bild n picture thing paintable | geschenk n present thing container
regenschirm m umbrella thing | stift m pen thing | lampe f lamp thing device | radio n radio thing device
computer m computer thing device | teller m plate thing dishes | tasse f cup thing dishes
koffer m suitcase thing container | fahrkarte f ticket thing | gitarre f guitar thing | kamera f camera thing device
jacke f jacket clothing | mantel m coat clothing | hut m hat clothing | kleid n dress clothing
pullover m jumper clothing | hemd n shirt clothing | mütze f cap clothing | schal m scarf clothing
tür f door opening | fenster n window opening | tisch m table furniture | stuhl m chair furniture
bett n bed furniture | sofa n sofa furniture | schrank m cupboard furniture | fernseher m television device
zimmer n room room | küche f kitchen room | haus n house building paintable | garten m garden room
wohnung f flat building | auto n car vehicle | fahrrad n bike vehicle | boot n boat vehicle
hund m dog animal | katze f cat animal | pferd n horse animal | vogel m bird animal | maus f mouse animal
fisch m fish animal | kuh f cow animal | schwein n pig animal | esel m donkey animal | ente f duck animal
schaf n sheep animal | frosch m frog animal | huhn n chicken animal | pinguin m penguin animal
mann m man person | frau f woman person | kind n child person | mädchen n girl person
lehrer m teacher person | lehrerin f teacher person | arzt m doctor person | ärztin f doctor person
freund m friend person | freundin f friend person | mutter f mother person family | vater m father person family
bruder m brother person family | schwester f sister person family | oma f grandma person family
opa m grandpa person family | baby n baby person | tante f aunt person family | onkel m uncle person family
sohn m son person family
tochter f daughter person family | chef m boss person | kellner m waiter person | nachbarin f neighbour person
schüler m pupil person | bäcker m baker person | fahrer m driver person | sängerin f singer person
"""


def _nouns() -> tuple[Noun, ...]:
    nouns = []
    for entry in _NOUN_TABLE.replace("\n", "|").split("|"):
        if entry.strip():
            german, gender, english, *tags = entry.split()
            nouns.append(Noun(german, gender, english, frozenset(tags)))  # type: ignore[arg-type]  # the table says m, f or n
    return tuple(nouns)


NOUNS = _nouns()

# -- adjectives ---------------------------------------------------------------------------------

_ANYTHING = "drink food thing clothing furniture building room vehicle animal person"
_MADE = "thing clothing furniture building vehicle device"
ADJECTIVES = (
    Adjective("groß", "groß", "big", _tags(_ANYTHING)),
    Adjective("klein", "klein", "small", _tags(_ANYTHING)),
    Adjective("alt", "alt", "old", _tags(_MADE + " room person animal reading")),
    Adjective("neu", "neu", "new", _tags(_MADE + " reading")),
    Adjective("jung", "jung", "young", _tags("person animal")),
    Adjective("schön", "schön", "beautiful", _tags(_MADE + " room animal")),
    Adjective("rot", "rot", "red", _tags("thing clothing furniture vehicle")),
    Adjective("blau", "blau", "blue", _tags("thing clothing furniture vehicle")),
    Adjective("grün", "grün", "green", _tags("thing clothing furniture vehicle")),
    Adjective("gelb", "gelb", "yellow", _tags("thing clothing vehicle")),
    Adjective("schwarz", "schwarz", "black", _tags("thing clothing vehicle animal")),
    Adjective("braun", "braun", "brown", _tags("clothing furniture animal")),
    Adjective("kalt", "kalt", "cold", _tags("drink food")),
    Adjective("heiß", "heiß", "hot", _tags("drink food")),
    Adjective("teuer", "teur", "expensive", _tags(_MADE + " drink")),
    Adjective("billig", "billig", "cheap", _tags(_MADE + " drink")),
    Adjective("gut", "gut", "good", _tags("drink food reading person")),
    Adjective("lecker", "lecker", "tasty", _tags("drink food")),
    Adjective("frisch", "frisch", "fresh", _tags("drink food")),
    Adjective("süß", "süß", "sweet", _tags("drink food")),
    Adjective("nett", "nett", "nice", _tags("person")),
    Adjective("freundlich", "freundlich", "friendly", _tags("person animal")),
    Adjective("müde", "müd", "tired", _tags("person animal")),
    Adjective("krank", "krank", "sick", _tags("person animal")),
    Adjective("interessant", "interessant", "interesting", _tags("reading person")),
    Adjective("langweilig", "langweilig", "boring", _tags("reading person")),
    Adjective("leer", "leer", "empty", _tags("container dishes room building")),
    Adjective("voll", "voll", "full", _tags("container dishes room building")),
    Adjective("kaputt", "kaputt", "broken", _tags("thing device vehicle furniture")),
    Adjective("schnell", "schnell", "fast", _tags("vehicle animal person")),
)

# "er ist müde": adjectives that say how a person is
STATES = (
    ("müde", "tired"), ("krank", "sick"), ("hungrig", "hungry"), ("durstig", "thirsty"),
    ("glücklich", "happy"), ("traurig", "sad"), ("nervös", "nervous"), ("wütend", "angry"),
    ("wach", "awake"),
)
COPULA = {"1sg": "bin", "2sg": "bist", "3sg": "ist", "1pl": "sind", "3pl": "sind"}
ENGLISH_COPULA = {"1sg": "am", "2sg": "are", "3sg": "is", "1pl": "are", "3pl": "are"}

# -- verbs --------------------------------------------------------------------------------------


def _verb(infinitive: str, english: str, tags: str, forms: tuple[str, str, str, str] | None = None,
          particle: str = "") -> Verb:
    base, third = english.split("/")
    stem = infinitive[len(particle):-2] if infinitive.endswith("en") else infinitive[len(particle):-1]
    return Verb(infinitive, forms or _regular(stem), (base, third), _tags(tags), particle)


VERBS = (
    _verb("trinken", "drink/drinks", "drink"),
    _verb("essen", "eat/eats", "food", ("esse", "isst", "isst", "essen")),
    _verb("kaufen", "buy/buys", "drink food thing clothing furniture vehicle animal"),
    _verb("sehen", "see/sees", "person animal thing vehicle building furniture", ("sehe", "siehst", "sieht", "sehen")),
    _verb("haben", "have/has", "animal thing clothing vehicle building furniture drink food",
          ("habe", "hast", "hat", "haben")),
    _verb("brauchen", "need/needs", "thing clothing vehicle furniture drink food"),
    _verb("suchen", "look for/looks for", "person animal thing clothing"),
    _verb("lesen", "read/reads", "reading", ("lese", "liest", "liest", "lesen")),
    _verb("schreiben", "write/writes", "writable"),
    _verb("finden", "find/finds", "person animal thing clothing"),
    _verb("lieben", "love/loves", "person animal"),
    _verb("kennen", "know/knows", "person animal"),
    _verb("besuchen", "visit/visits", "person"),
    _verb("treffen", "meet/meets", "person", ("treffe", "triffst", "trifft", "treffen")),
    _verb("fragen", "ask/asks", "person"),
    _verb("mögen", "like/likes", "person animal drink food", ("mag", "magst", "mag", "mögen")),
    _verb("möchten", "want/wants", "drink food thing clothing vehicle animal",
          ("möchte", "möchtest", "möchte", "möchten")),
    _verb("waschen", "wash/washes", "animal vehicle clothing dishes", ("wasche", "wäschst", "wäscht", "waschen")),
    _verb("verkaufen", "sell/sells", "thing vehicle building furniture clothing"),
    _verb("nehmen", "take/takes", "thing drink food clothing", ("nehme", "nimmst", "nimmt", "nehmen")),
    _verb("bestellen", "order/orders", "drink food"),
    _verb("kochen", "cook/cooks", "cookable"),
    _verb("malen", "paint/paints", "paintable person animal"),
    _verb("bauen", "build/builds", "building furniture"),
    _verb("vergessen", "forget/forgets", "thing clothing", ("vergesse", "vergisst", "vergisst", "vergessen")),
    _verb("hören", "hear/hears", "person animal"),
    _verb("füttern", "feed/feeds", "animal", ("füttere", "fütterst", "füttert", "füttern")),
    _verb("reparieren", "repair/repairs", "device vehicle furniture"),
    _verb("putzen", "clean/cleans", "room vehicle furniture dishes", ("putze", "putzt", "putzt", "putzen")),
    _verb("öffnen", "open/opens", "opening container", ("öffne", "öffnest", "öffnet", "öffnen")),
    _verb("tragen", "carry/carries", "container", ("trage", "trägst", "trägt", "tragen")),
)

SEPARABLE_VERBS = (
    _verb("anrufen", "call/calls", "person", particle="an"),
    _verb("einladen", "invite/invites", "person", ("lade", "lädst", "lädt", "laden"), particle="ein"),
    _verb("abholen", "pick up/picks up", "person", particle="ab"),
    _verb("anschauen", "look at/looks at", "person animal thing vehicle building reading", particle="an"),
    _verb("aufmachen", "open/opens", "opening container", particle="auf"),
    _verb("zumachen", "close/closes", "opening container", particle="zu"),
    _verb("ausmachen", "turn off/turns off", "device", particle="aus"),
    _verb("mitbringen", "bring/brings", "drink food thing", particle="mit"),
    _verb("anziehen", "put on/puts on", "clothing", particle="an"),
    _verb("aufräumen", "tidy up/tidies up", "room", particle="auf"),
)

MODALS = (
    Modal(("möchte", "möchtest", "möchte", "möchten"), ("want to", "wants to"),
          ("do not want to", "does not want to"), ("do", "does"), "want to"),
    Modal(("will", "willst", "will", "wollen"), ("want to", "wants to"),
          ("do not want to", "does not want to"), ("do", "does"), "want to"),
    Modal(("kann", "kannst", "kann", "können"), ("can", "can"), ("cannot", "cannot"), ("can", "can"), ""),
    Modal(("muss", "musst", "muss", "müssen"), ("must", "must"),
          ("do not have to", "does not have to"), ("must", "must"), ""),
    Modal(("darf", "darfst", "darf", "dürfen"), ("may", "may"), ("may not", "may not"), ("may", "may"), ""),
)

# verbs that take a "dass" clause: "ich glaube , dass ..." -> "i think that ..."
THAT_VERBS = (
    _verb("glauben", "think/thinks", ""),
    _verb("wissen", "know/knows", "", ("weiß", "weißt", "weiß", "wissen")),
    _verb("sagen", "say/says", ""),
    _verb("hoffen", "hope/hopes", ""),
)

# subordinating conjunctions with a comma kept in English: "..., weil er müde ist" -> "..., because he is tired"
CONJUNCTIONS = (("weil", "because"), ("obwohl", "although"))
ADVERBS = (("heute", "today"), ("jetzt", "now"))

# -- subjects and determiners --------------------------------------------------------------------

PRONOUNS = (
    Subject("ich", "i", "1sg"), Subject("du", "you", "2sg"), Subject("er", "he", "3sg"),
    Subject("sie", "she", "3sg"), Subject("wir", "we", "1pl"), Subject("sie", "they", "3pl"),
)
NAMES = tuple(Subject(n, n, "3sg") for n in
              "anna tom lisa max paul maria ben lena jonas emma felix sarah".split())

# possessive -> English; all decline like "ein" (mein / meinen / meine)
POSSESSIVES = (("mein", "my"), ("dein", "your"), ("sein", "his"), ("ihr", "her"), ("unser", "our"))
_DEFINITE = {("nom", "m"): "der", ("acc", "m"): "den", ("nom", "f"): "die", ("acc", "f"): "die",
             ("nom", "n"): "das", ("acc", "n"): "das"}
_EIN_ENDING = {("nom", "m"): "", ("acc", "m"): "en", ("nom", "f"): "e", ("acc", "f"): "e",
               ("nom", "n"): "", ("acc", "n"): ""}
# adjective endings: after an ein-word (mixed declension) and after der/die/das (weak declension)
_MIXED_ENDING = {("nom", "m"): "er", ("acc", "m"): "en", ("nom", "f"): "e", ("acc", "f"): "e",
                 ("nom", "n"): "es", ("acc", "n"): "es"}
_WEAK_ENDING = {("nom", "m"): "e", ("acc", "m"): "en", ("nom", "f"): "e", ("acc", "f"): "e",
                ("nom", "n"): "e", ("acc", "n"): "e"}

Determiner = Literal["definite", "indefinite", "negative", "possessive"]


def german_noun_phrase(determiner: Determiner, case: Case, noun: Noun, adjective: Adjective | None,
                       possessive: str = "") -> list[str]:
    """``("indefinite", "acc", hund, groß)`` -> ``["einen", "großen", "hund"]``."""
    key = (case, noun.gender)
    if determiner == "definite":
        words, endings = [_DEFINITE[key]], _WEAK_ENDING
    else:
        base = {"indefinite": "ein", "negative": "kein", "possessive": possessive}[determiner]
        words, endings = [base + _EIN_ENDING[key]], _MIXED_ENDING
    if adjective is not None:
        words.append(adjective.stem + endings[key])
    return words + [noun.german]


def english_noun_phrase(determiner: str, noun: Noun, adjective: Adjective | None) -> list[str]:
    """``("a", hund, alt)`` -> ``["an", "old", "dog"]``: "a" becomes "an" before a vowel."""
    rest = ([adjective.english] if adjective else []) + noun.english.split()
    if determiner == "a" and rest[0][0] in "aeiou":
        determiner = "an"
    return [determiner] + rest
