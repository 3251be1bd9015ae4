import Foundation

/// moto's S3 in server mode on 127.0.0.1 with IAM authentication on (`moto_server.py` beside
/// this file): a user and its access key are made first, and every later request must be
/// signed with them. The remote cache's S3 backend in tests.
///
/// The server announces its account in a file and every question is a process of its own with
/// its answer in a file: no pipe joins this process to moto, because a long-lived pipe in a
/// test process that spawns children from many threads has had its descriptor closed and
/// reused under it (seen: moto's answer read from another run's standard error).
final class MotoServer: @unchecked Sendable {
    /// What the script announced.
    struct Account: Decodable {
        var port: Int
        var key: String
        var secret: String
        var bucket: String
    }

    let account: Account
    private let process = Process()
    private let scratch: TemporaryDirectory
    private var accountFile: URL { scratch.file("account.json") }

    /// The script, found beside this file.
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().appendingPathComponent("moto_server.py")

    /// `--remote-cache-endpoint`.
    var endpoint: String { "http://127.0.0.1:\(account.port)" }

    /// The environment thumbgen reads its credentials from; `secret` replaces the right one.
    func environment(secret: String? = nil) -> [String: String] {
        ["AWS_ACCESS_KEY_ID": account.key, "AWS_SECRET_ACCESS_KEY": secret ?? account.secret,
         "AWS_REGION": "us-east-1"]
    }

    /// Starts moto and makes the account; throws when moto is missing or does not start
    /// within two minutes (it imports slowly on a loaded machine).
    init() throws {
        scratch = try TemporaryDirectory("moto")
        let log = scratch.file("server.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script.path, "--account", scratch.file("account.json").path]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        var account: Account?
        while account == nil && process.isRunning && Date() < deadline {
            account = (try? Data(contentsOf: scratch.file("account.json")))
                .flatMap { try? JSONDecoder().decode(Account.self, from: $0) }
            if account == nil { Thread.sleep(forTimeInterval: 0.1) }
        }
        guard let account else {
            process.terminate()
            let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw FixtureError("moto_server.py did not start (pip install 'moto[server]'; "
                               + "scripts/setup --tests installs it): \(said.suffix(400))")
        }
        self.account = account
    }

    /// Starts one off the concurrency pool (see `OffPool`): starting waits, and a pool thread
    /// held for seconds starves the other suites.
    static func start() async throws -> MotoServer {
        try await OffPool.run { try MotoServer() }
    }

    deinit { stop() }

    /// Stops moto (SIGTERM: nothing of it needs to be kept) and waits for it.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// The bucket's objects and their sizes.
    func objects() async throws -> [String: Int] {
        struct Listing: Decodable { var keys: [String: Int] }
        return try JSONDecoder().decode(Listing.self, from: try await ask(["list"])).keys
    }

    /// Flips the last byte of the object `key`.
    func flip(_ key: String) async throws {
        _ = try await ask(["flip", key])
    }

    /// Stores the file at `file` as the object `key`.
    func put(_ key: String, from file: URL) async throws {
        _ = try await ask(["put", key, file.path])
    }

    /// The SHA-256 of the object `key`.
    func sha256(_ key: String) async throws -> String {
        struct Answer: Decodable { var sha256: String }
        return try JSONDecoder().decode(Answer.self, from: try await ask(["sha", key])).sha256
    }

    /// Runs the script's `--ask WORDS` off the pool and returns what it printed.
    private func ask(_ words: [String]) async throws -> Data {
        let script = Self.script, account = accountFile
        let folder = try TemporaryDirectory("moto-ask")
        return try await OffPool.run {
            let answer = folder.file("answer")
            _ = FileManager.default.createFile(atPath: answer.path, contents: nil)
            let asking = Process()
            asking.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            asking.arguments = ["python3", script.path, "--account", account.path, "--ask"] + words
            asking.standardInput = FileHandle.nullDevice
            asking.standardOutput = try FileHandle(forWritingTo: answer)
            asking.standardError = try FileHandle(forWritingTo: answer)
            try asking.run()
            asking.waitUntilExit()
            let said = try Data(contentsOf: answer)
            guard asking.terminationReason == .exit, asking.terminationStatus == 0 else {
                throw FixtureError("moto_server.py --ask \(words) failed: \(String(decoding: said, as: UTF8.self))")
            }
            return said
        }
    }
}
