"""Billable weight."""


def billable_grams(actual, length_cm, width_cm, height_cm):
    return max(actual, length_cm * width_cm * height_cm * 1000 // 5000)
