"""Versioned Jinja prompt templates, shipped as package data.

Layout: ``prompts/<scorer>/<version>.jinja``.
"""
