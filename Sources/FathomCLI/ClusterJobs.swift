import Fathom
import Foundation

/// A zoom-out spread over a Slurm cluster (Documentation/Sequences.md, "On a cluster"): one job
/// computes the reference orbits and saves them, a job array renders slices of the frames
/// against them, a last job makes the video; `fathom sequence --slurm DIR` writes the jobs.
enum ClusterJobs {
    /// The file that says a reference folder is complete: written last, after every orbit.
    static let completeName = "complete"

    /// The frames this task renders: all of `frames`, or with --slice-of T the task's share
    /// (its index from SLURM_ARRAY_TASK_ID, else Kubernetes' JOB_COMPLETION_INDEX); nil when
    /// the share is empty (more tasks than frames).
    static func slice(_ text: String?, frames: ClosedRange<Int>) throws -> ClosedRange<Int>? {
        guard let text else { return frames }
        guard let tasks = Int(text), tasks >= 1 && tasks <= 100_000 else {
            throw CLIError.data("--slice-of: '\(text)' is not a task count in 1...100000")
        }
        let environment = ProcessInfo.processInfo.environment
        guard let indexText = environment["SLURM_ARRAY_TASK_ID"] ?? environment["JOB_COMPLETION_INDEX"] else {
            throw CLIError.usage(
                "--slice-of takes the task's index from SLURM_ARRAY_TASK_ID (a Slurm array task) or JOB_COMPLETION_INDEX (a Kubernetes Indexed Job), and neither is set"
            )
        }
        guard let index = Int(indexText), index >= 0 && index < tasks else {
            throw CLIError.data("task index '\(indexText)' is outside 0...\(tasks - 1) (--slice-of \(tasks))")
        }
        let count = frames.count
        let lo = frames.lowerBound + index * count / tasks, hi = frames.lowerBound + (index + 1) * count / tasks - 1
        return lo <= hi ? lo...hi : nil
    }

    /// Primes the frames' orbits as a render of `range` would and saves every orbit in
    /// `folder` (orbit-0.orbit, ...), then `complete`: all of them or none.
    static func saveReferences(
        _ sequence: FrameSequence, _ range: ClosedRange<Int>, settings: RenderSettings, cache: ReferenceCache,
        into folder: String, control: RenderControl
    ) throws {
        var settings = settings
        settings.perturbation.cache = cache
        _ = try SequenceCommand.prepareFolder(folder)
        try sequence.prime(range, settings: settings, control: control)
        if control.isCancelled { throw RenderError.cancelled }
        let orbits = cache.storedOrbits
        let outputs = try OutputSet(
            orbits.indices.map { folder + "/orbit-\($0).orbit" } + [folder + "/" + completeName])
        for (i, orbit) in orbits.enumerated() { try outputs.stage(orbit.fileData(), at: i) }
        try outputs.stage(Data("\(orbits.count) orbits\n".utf8), at: orbits.count)
        try outputs.commit()
    }

    /// The orbits a reference job saved in `folder`; a folder without its `complete` file (the
    /// job has not finished) is refused.
    static func loadReferences(_ folder: String) throws -> [ReferenceOrbit] {
        guard let marker = FileManager.default.contents(atPath: folder + "/" + completeName),
            let count = Int(String(decoding: marker, as: UTF8.self).split(separator: " ").first ?? "")
        else {
            throw CLIError.noInput(
                "no complete reference orbits in '\(folder)': the reference job has not finished (or failed)")
        }
        return try (0..<count).map { try ReferenceOrbit.read(from: folder + "/orbit-\($0).orbit") }
    }

    /// `s` as one shell word.
    static func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Writes the jobs of a zoom-out of `frames` frames from `deep` into `folder` (made if its
    /// parent exists): deep.json, reference.sbatch, frames.sbatch (an array of `tasks`),
    /// video.sbatch and submit.sh, all or none, and the logs and frames folders; with `submit`
    /// it runs submit.sh (sbatch must be on PATH: checked before anything is written).
    static func write(
        into folder: String, deep: LocationFile, frames: Int, factor: Double, size: (Int, Int), bitDepth: BitDepth,
        tasks: Int, fps: Double, submit: Bool, quiet: Bool
    ) throws {
        guard tasks >= 1 && tasks <= 10_000 else { throw CLIError.data("--tasks: \(tasks) is outside 1...10000") }
        guard fps >= 1 && fps <= 240 else { throw CLIError.data("--fps: \(fps) is outside 1...240") }
        if submit && VideoEncoder.program("sbatch") == nil {
            throw CLIError(exitCode: 69, message: "sbatch is not installed (Slurm's client): --submit needs it")
        }
        let root = URL(fileURLWithPath: folder).standardizedFileURL.path
        let fathom =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
        // Every value written into a script is one quoted shell word; a control character (a
        // newline) would still end a line of it (a comment, an #SBATCH directive), so a path
        // with one is refused before anything is written.
        for (what, path) in [("the jobs folder", root), ("the fathom executable", fathom)]
        where path.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw CLIError.usage(
                "--slurm: \(what)'s path '\(FathomError.quotedForMessage(path))' has a control character, which a job script cannot hold"
            )
        }
        _ = try SequenceCommand.prepareFolder(folder)
        let sequence = [
            "sequence", "--zoom-out", "\(frames)", "--factor", "\(factor)", "--location", root + "/deep.json",
            "--size", "\(size.0)x\(size.1)", "--bit-depth", "\(bitDepth.rawValue)",
        ].map(quoted).joined(separator: " ")
        func job(_ name: String, _ extra: String, _ command: String) -> Data {
            Data(
                """
                #!/bin/bash
                #SBATCH --job-name=fathom-\(name)
                #SBATCH --output=logs/\(name)-%A\(extra.isEmpty ? "" : "-%a").out
                \(extra)
                # Written by fathom sequence --slurm (Documentation/Sequences.md, "On a cluster").
                # Submitted from its folder (submit.sh), where the log path above is relative.
                set -euo pipefail
                FATHOM=${FATHOM:-\(quoted(fathom))}
                exec "$FATHOM" \(command)

                """.utf8)
        }
        let threads = "--threads \"${SLURM_CPUS_PER_TASK:-0}\""
        let files: [(String, Data)] = [
            ("deep.json", Data(deep.jsonString().utf8)),
            (
                "reference.sbatch",
                job("reference", "", "\(sequence) \(threads) --save-references \(quoted(root + "/orbits")) --quiet")
            ),
            (
                "frames.sbatch",
                job(
                    "frames", "#SBATCH --array=0-\(tasks - 1)",
                    "\(sequence) \(threads) --load-references \(quoted(root + "/orbits")) --slice-of \(tasks) --resume --output-dir \(quoted(root + "/frames"))"
                )
            ),
            (
                "video.sbatch",
                job(
                    "video", "",
                    "video --frames \(quoted(root + "/frames")) --reverse --fps \(fps) --output \(quoted(root + "/zoom.mp4")) --quiet"
                )
            ),
            (
                "submit.sh",
                Data(
                    """
                    #!/bin/bash
                    # The three jobs, each after the one before it succeeded (afterok).
                    set -euo pipefail
                    cd \(quoted(root))
                    command -v sbatch >/dev/null || { echo "fathom: sbatch is not installed (Slurm's client)" >&2; exit 69; }
                    reference=$(sbatch --parsable reference.sbatch)
                    frames=$(sbatch --parsable --dependency=afterok:${reference%%;*} frames.sbatch)
                    video=$(sbatch --parsable --dependency=afterok:${frames%%;*} video.sbatch)
                    echo "submitted: reference ${reference%%;*}, frames ${frames%%;*} (\(tasks) tasks), video ${video%%;*}"

                    """.utf8)
            ),
        ]
        let outputs = try OutputSet(files.map { root + "/" + $0.0 })
        for (i, file) in files.enumerated() { try outputs.stage(file.1, at: i) }
        try outputs.commit()
        for name in ["reference.sbatch", "frames.sbatch", "video.sbatch", "submit.sh"] {
            chmod(root + "/" + name, 0o755)
        }
        for sub in ["logs", "frames"] where !FileManager.default.fileExists(atPath: root + "/" + sub) {
            guard mkdir(root + "/" + sub, 0o777) == 0 else {
                throw CLIError.cannotCreate("cannot create '\(root)/\(sub)': \(String(cString: strerror(errno)))")
            }
        }
        if !quiet {
            print("wrote the jobs of \(frames) frames (\(tasks) tasks) in \(root): run \(root)/submit.sh")
        }
        if submit {
            fflush(nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = [root + "/submit.sh"]
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw CLIError.other("submit.sh failed (exit \(process.terminationStatus)): see sbatch's message above")
            }
        }
    }
}
