import Fathom
import Foundation
import FractalNumerics

/// `fathom find`: the minibrot that dominates a view (period, nucleus, size), or with
/// `--depth R` an automatic descent to a minibrot smaller than R.
enum FindCommand {
    static func run(_ args: [String]) throws {
        guard let a = try Commands.find.arguments(args) else { return }
        try a.refusePositionals()
        var file = try RenderCommand.baseLocation(a)
        try RenderCommand.applyOverrides(a, to: &file)
        let location = try file.location()
        guard case .mandelbrot = location.family else {
            throw CLIError.data(
                "find: only the Mandelbrot family has minibrots to find (this view is \(location.family.name))")
        }
        let viewport = try Viewport(location: location, width: 1, height: 1)
        let radius = viewport.radius.floatExpValue
        var target: FloatExp?
        if let d = a[.depth] {
            let value: BigFloat
            do { value = try BigFloat(parsing: d, precision: Precision(bits: 64)) } catch {
                throw CLIError.data("--depth: '\(d)' is not a decimal number")
            }
            guard value.signum > 0 else { throw CLIError.data("--depth: '\(d)' must be greater than zero") }
            guard !(value < Location.minimumRadiusValue) else {
                throw CLIError.data(
                    "--depth: '\(d)' is below the smallest radius Fathom renders (\(Location.minimumRadius))")
            }
            target = value.floatExpValue
        }
        let fraction = a.number(.fraction) ?? 0.5
        if let save = a[.save] {
            guard save.lowercased().hasSuffix(".json") || save.lowercased().hasSuffix(".kfr") else {
                throw CLIError.usage("--save: '\(save)' must end in .json or .kfr")
            }
        }
        // The render's size and threads are checked before the search, as every option is.
        let renderSize = a.size(.renderSize) ?? (640, 360)
        try ImageSize.validate(width: renderSize.0, height: renderSize.1)
        let threads = a.int(.renderThreads) ?? 0
        if a[.renderImage] == nil, let given = [CLIOption.renderSize, .renderThreads].first(where: { a[$0] != nil }) {
            throw CLIError.usage("--\(given.name) applies to --render's image: give --render PATH")
        }
        // Both outputs are resolved (and one file for both refused) before the search, and
        // written together at the end.
        let paths = (a[.save].map { [$0] } ?? []) + (a[.renderImage].map { [$0] } ?? [])
        let outputs = try OutputSet(paths)
        let control = Cancellation.control()
        let quiet = a.has(.quiet)

        let start = Date()
        let center = viewport.center
        func decimal(_ x: FloatExp, _ digits: Int = 4) -> String {
            BigFloat(x, precision: Precision(bits: 64)).decimalString(significantDigits: digits)
        }
        func describe(_ m: MinibrotFinder.Minibrot) -> String {
            "period \(m.period), size \(decimal(m.size)), "
                + "Newton \(m.newtonSteps) steps, |z_p / z_p'| \(decimal(m.newtonStep, 2))"
        }
        let found: MinibrotFinder.Minibrot
        if let target {
            guard
                let levels = MinibrotFinder.descend(
                    from: center, radius: radius, to: target, fraction: fraction,
                    levelDone: { level in
                        guard !quiet else { return }
                        print("level: view radius \(decimal(level.viewRadius)), " + describe(level.minibrot))
                    })
            else { throw CLIError.other("find: no minibrot found in this view") }
            found = levels.last!.minibrot
            guard found.size * FloatExp(4) < target else {
                throw CLIError.other(
                    "find: the descent stopped at a minibrot of size \(decimal(found.size)) (no deeper one found around it)"
                )
            }
        } else {
            guard let m = MinibrotFinder.find(near: center, radius: radius) else {
                throw CLIError.other("find: no minibrot found in this view")
            }
            found = m
            if !quiet { print("minibrot: " + describe(m)) }
        }
        var result = LocationFile(
            location: MinibrotFinder.location(
                of: found, iterations: location.maxIterations, name: "minibrot-p\(found.period)"))
        result.color = file.color
        if !quiet {
            print(String(format: "found in %.1f s:", Date().timeIntervalSince(start)))
            print("center: \(result.center[0]), \(result.center[1])")
            print("radius: \(result.radius)")
            print("period: \(found.period), iterations: \(result.maxIterations)")
        }
        if let save = a[.save] {
            let text = save.lowercased().hasSuffix(".kfr") ? try KFR.text(of: result) : result.prettyJSONString()
            try outputs.stage(Data(text.utf8), at: 0)
        }
        var rendered: String?
        if let png = a[.renderImage] {
            let size = renderSize
            var settings = RenderSettings(width: size.0, height: size.1)
            settings.threads = threads
            let r = try ImageRender.render(
                result, settings: settings, into: outputs, png: paths.count - 1, control: control)
            rendered = String(
                format: "wrote %@: %dx%d, path %@, %.2f s", png, size.0, size.1, r.report.path.rawValue,
                r.report.seconds)
            // Unsettled pixels are reported, as by render.
            if let p = r.report.perturbation, p.unsettledPixels > 0 {
                FileHandle.standardError.write(
                    Data((RenderCommand.unverifiedWarning(p) + "\n").utf8))
            }
        }
        if control.isCancelled { throw RenderError.cancelled }
        try outputs.commit()
        if !quiet, let rendered { print(rendered) }
    }
}
