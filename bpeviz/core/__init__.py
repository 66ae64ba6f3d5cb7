"""Core: the records, ids, rules and errors every stage passes around; imports no other part of bpeviz."""
