import FuzzSupport

FuzzDriver.run(fuzzKFR)
