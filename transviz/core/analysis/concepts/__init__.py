"""The numbers behind the Concepts tab: each module computes one picture the tutorials describe,
from the loaded model's real weights, for the explorer's sentence at its step. No Qt here; the
tab's views only draw what these return (``transviz.concepts`` gathers the public names)."""
