"""Template functions: conversion family (filled in by its owner)."""
