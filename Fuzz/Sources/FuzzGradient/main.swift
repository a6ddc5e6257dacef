import FuzzSupport

FuzzDriver.run(fuzzGradient)
