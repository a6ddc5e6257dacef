import FuzzSupport

FuzzDriver.run(fuzzPNG)
