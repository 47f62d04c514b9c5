print("sectional-bench: nothing to measure yet")
