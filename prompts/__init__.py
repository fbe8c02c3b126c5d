"""Versioned Jinja prompt templates, shipped as package data: ``prompts/<scorer>/<version>.jinja``."""
