import Fathom
import Foundation

// MARK: - device-orbit

/// Reference orbits on a `ReferenceStepDevice` (the CUDA kernel, or its CPU emulation with
/// `--device emulated`) against the CPU's (MPFR, as `ReferenceThreading.choose` shares the steps
/// among every core) and one thread of MPFR doing mpfr-step.c's operations: the step times, and
/// whether the orbits are the same bit for bit (every stored Double, the escape and its gaps).
@MainActor func deviceOrbitGroup() throws {
    let device: any ReferenceStepDevice
    switch options.orbitDevice {
    case "emulated": device = EmulatedOrbitDevice()
    case "cuda": device = try CUDAOrbitDevice(settles: options.orbitSettle, sharedScratch: !options.globalScratch)
    default: device = (try? CUDAOrbitDevice()) ?? EmulatedOrbitDevice()
    }
    let cores = ProcessInfo.processInfo.activeProcessorCount
    func orbitCase(_ name: String, c: BigComplex, steps: Int, precision p: Precision) throws {
        try measure("device-orbit", name, runs: 1) {
            let (cpu, cpuTime) = try bestOfRuns(options.runs) {
                try ReferenceOrbit.compute(
                    point: c, power: 2, juliaC: nil, maxIterations: steps, precision: p, lowWords: true, threads: cores)
            }
            let before = (device as? CUDAOrbitDevice)?.phaseSeconds
            let detailBefore = (device as? CUDAOrbitDevice)?.detailSeconds
            let (gpu, gpuTime) = try bestOfRuns(options.runs) {
                try ReferenceOrbit.compute(
                    point: c, power: 2, juliaC: nil, maxIterations: steps, precision: p, lowWords: true, device: device)
            }
            let n = Double(cpu.count - 1)
            // One thread of MPFR over at most 200 steps (2.6 ms a step at 380k bits).
            let baselineSteps = min(cpu.count - 1, 200)
            let baseline = MPFROperations.mpfrStepSteps(c: c, steps: baselineSteps, precision: p)
            let same =
                cpu.compressed == gpu.compressed && cpu.escaped == gpu.escaped && cpu.escapeGaps == gpu.escapeGaps
                && cpu.tiny.keys == gpu.tiny.keys
            var notes = [
                "\(device.deviceName); CPU: \(ReferenceThreading.choose(bits: p.bits, power: 2, threads: cores))"
            ]
            notes.append(same ? "same orbit bit for bit (\(cpu.count - 1) steps)" : "ORBITS DIFFER")
            if cpu.escaped { notes.append("escaped after \(cpu.count - 1) steps") }
            if let before, let after = (device as? CUDAOrbitDevice)?.phaseSeconds {
                let perStep = zip(after, before).map { ($0 - $1) / Double(options.runs) / n * 1e6 }
                notes.append(
                    "kernel phases, us a step: "
                        + zip(["A", "B", "tiles", "C", "D"], perStep).map { "\($0) " + String(format: "%.1f", $1) }
                        .joined(separator: ", "))
            }
            if let detailBefore, let after = (device as? CUDAOrbitDevice)?.detailSeconds {
                let perStep = zip(after, detailBefore).map { ($0 - $1) / Double(options.runs) / n * 1e6 }
                let names = [
                    "add: align", "carry", "normalise", "round", "D: product", "D: add", "D: stored", "A: add",
                ]
                notes.append(
                    "block 0's parts, us a step: "
                        + zip(names, perStep).map { "\($0) " + String(format: "%.1f", $1) }.joined(separator: ", "))
            }
            return (
                [
                    "device us/step": gpuTime / n, "cpu us/step": cpuTime / n, "mpfr-step us/step": baseline,
                    "device vs mpfr-step": baseline / (gpuTime / n), "device vs cpu": cpuTime / gpuTime,
                    "same": same ? 1 : 0,
                ], notes
            )
        }
    }
    for (bits, steps) in [(4000, 2000), (10000, 1000), (50000, 200), (175_000, 60), (380_000, 30)] {
        let p = Precision(bits: bits)
        try orbitCase(
            "rabbit orbit at \(bits) bits, \(steps) steps", c: BigComplex(parsingRe: "-0.12", im: "0.75", precision: p),
            steps: steps, precision: p)
    }
    for name in ["e1086", "e8000", "e52465", "fshark30_e114514"] {
        let path = options.locations + "/" + name + ".json"
        guard FileManager.default.fileExists(atPath: path) else { continue }
        let loc = try LocationFile.read(path: path).location()
        let view = try Viewport(location: loc, width: 640, height: 360)
        let p = view.orbitPrecision
        let steps =
            name.hasPrefix("e1086") || name.hasPrefix("e8000") ? min(options.orbitSteps, 10000) : options.orbitSteps
        try orbitCase(
            "\(name) orbit at \(p.bits) bits, \(steps) steps", c: view.center.rounded(to: p), steps: steps, precision: p
        )
    }
}
