import Fathom
import Foundation
import Testing

/// `fathom sequence`'s cluster options without a cluster: the jobs' commands run here as their
/// tasks would (Scripts/slurm-check.sh runs them on a real Slurm).
@Suite("Sequences on a cluster")
struct ClusterTests {
    static let view = ["--zoom-out", "6", "--preset", "e1000", "--size", "64x36"]

    static func frames(_ folder: String) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasSuffix(".png") {
            out[name] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
        }
        return out
    }

    @Test("saved references, slices from SLURM_ARRAY_TASK_ID and JOB_COMPLETION_INDEX, resume: the local run's bytes")
    func slices() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let local = try FathomProcess.run(["sequence"] + Self.view + ["--output-dir", "local", "--quiet"], in: folder)
        #expect(local.code == 0, "\(local.stderr)")
        let save = try FathomProcess.run(["sequence"] + Self.view + ["--save-references", "orbits"], in: folder)
        #expect(save.code == 0 && save.stdout.contains("saved 1 reference orbits"), "\(save.stderr)")
        var environment = ProcessInfo.processInfo.environment
        environment["SLURM_ARRAY_TASK_ID"] = nil
        environment["JOB_COMPLETION_INDEX"] = nil
        for task in 0..<4 {
            var env = environment
            env[task % 2 == 0 ? "SLURM_ARRAY_TASK_ID" : "JOB_COMPLETION_INDEX"] = "\(task)"
            let run = try FathomProcess.run(
                ["sequence"] + Self.view + [
                    "--load-references", "orbits", "--slice-of", "4", "--resume", "--output-dir", "cluster", "--quiet",
                ], in: folder, environment: env)
            #expect(run.code == 0, "\(run.stderr)")
        }
        let expected = try Self.frames(folder + "/local")
        #expect(expected.count == 6)
        #expect(try Self.frames(folder + "/cluster") == expected)
        // A frame gone and one cut short: the slice renders those two only, and the same bytes.
        try FileManager.default.removeItem(atPath: folder + "/cluster/frame-00001.png")
        let cut = expected["frame-00002.png"]!.prefix(100)
        try cut.write(to: URL(fileURLWithPath: folder + "/cluster/frame-00002.png"))
        var env = environment
        env["SLURM_ARRAY_TASK_ID"] = "0"
        let resumed = try FathomProcess.run(
            ["sequence"] + Self.view + [
                "--load-references", "orbits", "--slice-of", "2", "--resume", "--output-dir", "cluster",
            ],
            in: folder, environment: env)
        #expect(resumed.code == 0 && resumed.stdout.contains("sequence: 2 of 6 frames (0..2)"))
        #expect(resumed.stdout.contains("1 frames already done, skipped"))
        #expect(try Self.frames(folder + "/cluster") == expected)
        // Other guard bits: no frame is done (they are stored with each frame, and may change its path).
        let otherBits = try FathomProcess.run(
            ["sequence"] + Self.view + [
                "--load-references", "orbits", "--slice-of", "2", "--resume", "--guard-bits", "20", "--output-dir",
                "cluster",
            ],
            in: folder, environment: env)
        #expect(otherBits.code == 0 && !otherBits.stdout.contains("already done"), "\(otherBits.stdout)")
        #expect(try LocationFile.read(path: folder + "/cluster/frame-00000.png").guardBits == 20)
        // Without an index, or with an incomplete reference folder: one line, nothing rendered.
        let noIndex = try FathomProcess.run(
            ["sequence"] + Self.view + ["--slice-of", "2", "--output-dir", "x"], in: folder, environment: environment)
        #expect(noIndex.code == 64 && noIndex.stderr.contains("SLURM_ARRAY_TASK_ID"))
        try FileManager.default.removeItem(atPath: folder + "/orbits/complete")
        let unfinished = try FathomProcess.run(
            ["sequence"] + Self.view + ["--load-references", "orbits", "--output-dir", "y"], in: folder)
        #expect(unfinished.code == 66 && unfinished.stderr.contains("reference job has not finished"))
        #expect(
            !FileManager.default.fileExists(atPath: folder + "/x")
                && !FileManager.default.fileExists(atPath: folder + "/y"))
    }

    @Test("--slurm writes the three jobs and submit.sh; --submit without sbatch writes nothing (exit 69)")
    func jobs() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let noSbatch = try FathomProcess.run(
            ["sequence"] + Self.view + ["--slurm", "jobs", "--submit"], in: folder,
            environment: ["PATH": "/nonexistent"])
        #expect(noSbatch.code == 69 && noSbatch.stderr.contains("sbatch is not installed"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/jobs"))
        let write = try FathomProcess.run(["sequence"] + Self.view + ["--slurm", "jobs", "--tasks", "3"], in: folder)
        #expect(write.code == 0, "\(write.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder + "/jobs").sorted()
        #expect(
            names == ["deep.json", "frames", "frames.sbatch", "logs", "reference.sbatch", "submit.sh", "video.sbatch"])
        let array = try String(contentsOfFile: folder + "/jobs/frames.sbatch", encoding: .utf8)
        #expect(array.contains("#SBATCH --array=0-2") && array.contains("--slice-of 3 --resume"))
        let submit = try String(contentsOfFile: folder + "/jobs/submit.sh", encoding: .utf8)
        #expect(submit.contains("--dependency=afterok:${reference%%;*} frames.sbatch"))
        #expect(submit.contains("--dependency=afterok:${frames%%;*} video.sbatch"))
        let deep = try LocationFile.read(path: folder + "/jobs/deep.json")
        #expect(deep.radius == Presets.named("e1000")!.location.radius)
        #expect(deep.guardBits == nil)
        // The command line's guard bits reach the jobs, as its engine options do.
        let guarded = try FathomProcess.run(
            ["sequence"] + Self.view + ["--slurm", "guarded", "--guard-bits", "30"], in: folder)
        #expect(guarded.code == 0, "\(guarded.stderr)")
        #expect(try LocationFile.read(path: folder + "/guarded/deep.json").guardBits == 30)
        let unwritable = try FathomProcess.run(["sequence"] + Self.view + ["--slurm", "/proc/jobs"], in: folder)
        #expect(unwritable.code == 73)
    }

    /// Folder names a shell would read as code if a script held them unquoted.
    static let hostileNames = [
        "a b", "q'uote", "d\"q", "$(touch PWNED)", "`touch PWNED`", "s;touch PWNED;#", "$HOME", "\\x",
        "-dash", "%A %a",
    ]

    @Test("the job scripts run with hostile folder names: the job and nothing else; a control character is refused")
    func hostileFolders() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Stand-ins for sbatch and fathom that record their arguments, one per line.
        let bin = folder + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let record = """
            #!/bin/bash
            printf '%s\\n' "$(basename "$0")" "$PWD" "$@" >> "$RECORD"
            echo 42
            """
        for name in ["sbatch", "fake-fathom"] {
            try record.write(toFile: bin + "/" + name, atomically: true, encoding: .utf8)
            chmod(bin + "/" + name, 0o755)
        }
        for (k, name) in Self.hostileNames.enumerated() {
            let parent = folder + "/case\(k)"
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            let write = try FathomProcess.run(["sequence"] + Self.view + ["--slurm", name, "--quiet"], in: parent)
            #expect(write.code == 0, "\(name): \(write.stderr)")
            let root = parent + "/" + name
            let log = parent + "/record.txt"
            var environment = ProcessInfo.processInfo.environment
            environment["PATH"] = bin + ":/usr/bin:/bin"
            environment["FATHOM"] = bin + "/fake-fathom"
            environment["RECORD"] = log
            for script in ["submit.sh", "reference.sbatch", "frames.sbatch", "video.sbatch"] {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/bin/bash")
                process.arguments = [root + "/" + script]
                process.currentDirectoryURL = URL(fileURLWithPath: root)
                process.environment = environment
                process.standardOutput = FileHandle.nullDevice
                try process.run()
                process.waitUntilExit()
                #expect(process.terminationStatus == 0, "\(name): \(script)")
            }
            let lines = try String(contentsOfFile: log, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false)
            // sbatch three times from the jobs folder, then fathom's three jobs with the folder's paths whole.
            #expect(lines.filter { $0 == "sbatch" }.count == 3, "\(name)")
            #expect(lines.filter { $0 == "fake-fathom" }.count == 3, "\(name)")
            #expect(lines.contains(Substring(root + "/deep.json")), "\(name): \(lines)")
            #expect(
                lines.contains(Substring(root + "/orbits")) && lines.contains(Substring(root + "/frames")), "\(name)")
            #expect(lines.contains(Substring(root + "/zoom.mp4")), "\(name)")
            // Each of the six ran in the jobs folder (submit.sh cd's there; the jobs were started there).
            #expect(lines.filter { $0 == Substring(root) }.count == 6, "\(name)")
            // Nothing ran but the stand-ins: no file made anywhere by the names' commands.
            let made = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
            #expect(!made.contains { $0.hasSuffix("PWNED") }, "\(name): \(made)")
        }
        for name in ["new\nline", "tab\there", "bell\u{7}", "del\u{7f}"] {
            let refused = try FathomProcess.run(["sequence"] + Self.view + ["--slurm", name], in: folder)
            #expect(refused.code == 64 && refused.stderr.contains("control character"), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/" + name))
        }
    }
}
