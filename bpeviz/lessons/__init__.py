"""Lessons: what a class reads from a run: steps, metrics, checks, comparisons, language mixes, detective work, drawing."""
