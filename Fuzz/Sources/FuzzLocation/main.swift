import FuzzSupport

FuzzDriver.run(fuzzLocation)
