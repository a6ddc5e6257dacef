// verify-view FILE [N]: checks a view against direct MPFR iteration: renders an N x N grid of
// its pixels (default 4 x 4) at 160x90 through the normal render path and iterates each of
// them directly in MPFR (`Verifier.check`). Prints each pixel and exits 1 on any mismatch.
import Fathom
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 2 || arguments.count == 3, let n = Int(arguments.count == 3 ? arguments[2] : "4"),
    (1...16).contains(n)
else {
    FileHandle.standardError.write(Data("usage: verify-view FILE [N, 1...16]\n".utf8))
    exit(64)
}
do {
    let file = try LocationFile.read(path: arguments[1])
    var settings = RenderSettings(width: 160, height: 90)
    try file.engine?.apply(to: &settings)
    let pixels = (0..<n * n).map { k in
        (x: (2 * (k % n) + 1) * settings.width / (2 * n), y: (2 * (k / n) + 1) * settings.height / (2 * n))
    }
    let report = try Verifier.check(location: try file.location(), settings: settings, pixels: pixels)
    for row in report.rows {
        let want = row.pixel.unstable ? "unstable" : "\(row.pixel.n2 ?? 0)/\(row.pixel.nBig ?? 0)"
        let mark = row.pixel.unstable ? "-" : (row.countsMatch && row.smoothMatches ? "ok" : "MISMATCH")
        print("(\(row.pixel.x), \(row.pixel.y)) rendered \(row.got.n2)/\(row.got.nBig), MPFR \(want) \(mark)")
    }
    print(
        "\(report.checked) of \(report.rows.count) pixels checked: \(report.outcome == .passed ? "all match" : "MISMATCH")"
    )
    exit(report.outcome == .passed ? 0 : 1)
} catch {
    FileHandle.standardError.write(Data("verify-view: \(error)\n".utf8))
    exit(1)
}
