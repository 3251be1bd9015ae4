import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// nginx with its WebDAV module on 127.0.0.1, as Bazel's HTTP remote cache is commonly served
/// (`dav_methods PUT; create_full_put_path on;`): the remote cache's HTTP backend in tests.
///
/// Runs unprivileged from a temporary prefix of its own (configuration, pid file, temporary
/// paths, logs), in the foreground as one process (`master_process off`), on a free port. Its
/// files are under `root`; its access log lists every request as `METHOD URI STATUS`.
final class NginxServer: @unchecked Sendable {
    /// The port it listens on, on 127.0.0.1.
    let port: Int
    /// The prefix folder; files PUT under `/cache/...` land in `root/cache/...`.
    let prefix: TemporaryDirectory
    private let process: Process

    /// The document root.
    var root: URL { prefix.file("www") }
    /// The remote cache's URL (`/cache` on this server).
    var cacheURL: String { "http://127.0.0.1:\(port)/cache" }

    /// The nginx binary: `/usr/sbin/nginx` (Debian's `nginx` package), else `nginx` on `PATH`.
    static let binary: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return (["/usr/sbin"] + path.split(separator: ":").map(String.init))
            .map { URL(fileURLWithPath: $0).appendingPathComponent("nginx") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Starts nginx; throws when it is missing or does not listen within 10 seconds.
    init() throws {
        guard let binary = Self.binary else {
            throw FixtureError("nginx is not installed (scripts/setup --tests installs it)")
        }
        prefix = try TemporaryDirectory("nginx")
        port = try FreePort.pick()
        for folder in ["www/cache", "tmp", "logs"] {
            try FileManager.default.createDirectory(at: prefix.file(folder), withIntermediateDirectories: true)
        }
        let p = prefix.url.path
        let configuration = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(p)/nginx.pid;
            error_log \(p)/logs/error.log warn;
            events { worker_connections 256; }
            http {
                client_body_temp_path \(p)/tmp/body;
                proxy_temp_path \(p)/tmp/proxy;
                fastcgi_temp_path \(p)/tmp/fastcgi;
                uwsgi_temp_path \(p)/tmp/uwsgi;
                scgi_temp_path \(p)/tmp/scgi;
                log_format methods '$request_method $uri $status';
                access_log \(p)/logs/access.log methods;
                client_max_body_size 200m;
                server {
                    listen 127.0.0.1:\(port);
                    root \(p)/www;
                    location /cache/ {
                        dav_methods PUT;
                        create_full_put_path on;
                        dav_access user:rw group:r all:r;
                    }
                }
            }
            """
        let config = try prefix.write(configuration, to: "nginx.conf")
        process = Process()
        process.executableURL = binary
        process.arguments = ["-p", p, "-c", config.path, "-e", "\(p)/logs/error.log"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        guard FreePort.waitUntilListening(port, within: .seconds(10)) else {
            stop()
            let log = (try? String(contentsOf: prefix.file("logs/error.log"), encoding: .utf8)) ?? ""
            throw FixtureError("nginx did not listen on \(port): \(log)")
        }
    }

    /// Starts one off the concurrency pool (see `OffPool`): starting waits, and a pool thread
    /// held for seconds starves the other suites.
    static func start() async throws -> NginxServer {
        try await OffPool.run { try NginxServer() }
    }

    deinit { stop() }

    /// Stops nginx (SIGQUIT, then SIGKILL if it lingers) and waits for it; idempotent.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGQUIT)
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning && ContinuousClock.now < deadline { usleep(5_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Every request so far, as `(method, uri, status)`.
    func requests() -> [(method: String, uri: String, status: Int)] {
        let text = (try? String(contentsOf: prefix.file("logs/access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 3, let status = Int(parts[2]) else { return nil }
            return (String(parts[0]), String(parts[1]), status)
        }
    }

    /// Empties the access log (nginx keeps appending to the same file).
    func clearLog() throws {
        try Data().write(to: prefix.file("logs/access.log"))
    }

    /// The files stored under the cache, relative to `/cache` (`v1/blobs/ab/...`).
    var storedFiles: [String] { TemporaryDirectory.files(under: root.appendingPathComponent("cache")) }
}
