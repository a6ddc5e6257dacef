import FuzzSupport

FuzzDriver.run(fuzzOrbit)
