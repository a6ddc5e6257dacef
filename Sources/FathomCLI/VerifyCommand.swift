import Fathom
import Foundation

enum VerifyCommand {
    static func run(_ args: [String]) throws {
        guard let a = try Commands.verify.arguments(args) else { return }
        guard !a.positionals.isEmpty else { throw CLIError.usage("verify needs at least one oracle file") }
        let threads = a.int(.threads) ?? 0
        let guardBits = a.int(.guardBits) ?? RenderSettings.defaultGuardBits
        var perturbation = PerturbationSettings()
        try RenderCommand.engineSettings(a, nil).apply(to: &perturbation)
        let (backend, gpuExact) = RenderCommand.backend(a)
        let oracles = try a.positionals.map { try OracleFile.read(path: $0) }
        var failed = 0, unsupported = 0
        for oracle in oracles {
            let report = try Verifier.verify(
                oracle, threads: threads, guardBits: guardBits, perturbation: perturbation,
                sampledOnly: a.has(.sampled), backend: backend, gpuExact: gpuExact)
            for warning in report.warnings { FileHandle.standardError.write(Data("warning: \(warning)\n".utf8)) }
            printTable(report, all: a.has(.allPixels))
            switch report.outcome {
            case .passed: break
            case .failed: failed += 1
            case .unsupported: unsupported += 1
            }
        }
        let passed = oracles.count - failed - unsupported
        print("verify: \(passed) passed, \(failed) failed, \(unsupported) not verified (of \(oracles.count) files)")
        if failed > 0 { throw CLIError.other("\(failed) file(s) do not match the oracle") }
        if unsupported > 0 { throw CLIError.other("\(unsupported) file(s) could not be verified") }
    }

    static func printTable(_ r: VerifyReport, all: Bool) {
        switch r.outcome {
        case .unsupported(let why):
            print("\(r.name): NOT VERIFIED: \(why)\n")
            return
        case .passed, .failed: break
        }
        let status = r.outcome == .passed ? "PASS" : "FAIL"
        print(
            "\(r.name): \(status)  path \(r.path?.rawValue ?? "-"), \(r.rows.count) pixels, \(r.checked) stable, "
                + "\(r.countMismatches) count mismatches, \(r.smoothMismatches) smooth mismatches, "
                + String(format: "max smooth error %.2e, render %.2f s", r.maxSmoothError, r.seconds))
        if let p = r.perturbation { print("  " + RenderCommand.describe(p)) }
        if r.backend != .cpu { print("  backend: \(r.device)") }
        let shown = r.rows.filter { all || !$0.countsMatch || !$0.smoothMatches }
        guard !shown.isEmpty else { print(""); return }
        print(
            "  " + pad("x", 6) + pad("y", 6) + pad("n2 want", 10) + pad("n2 got", 10) + pad("nBig want", 10)
                + pad("nBig got", 10) + pad("smooth err", 12) + "status")
        func show(_ v: Int?) -> String { v.map(String.init) ?? "-" }
        for row in shown {
            let p = row.pixel
            let state = p.unstable ? "unstable (skipped)" : (row.countsMatch && row.smoothMatches ? "ok" : "MISMATCH")
            print(
                "  " + pad("\(p.x)", 6) + pad("\(p.y)", 6) + pad(show(p.n2), 10)
                    + pad(row.got.n2 == 0 ? "-" : "\(row.got.n2)", 10)
                    + pad(show(p.nBig), 10) + pad(row.got.nBig == 0 ? "-" : "\(row.got.nBig)", 10)
                    + pad(row.smoothError.map { String(format: "%.1e", $0) } ?? "-", 12) + state)
        }
        print("")
    }
}
