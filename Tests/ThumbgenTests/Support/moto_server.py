#!/usr/bin/env python3
"""moto's S3 in server mode on 127.0.0.1, with IAM authentication on, for thumbgen's remote
cache tests.

Usage: python3 moto_server.py --account FILE
       python3 moto_server.py --account FILE --ask list|flip KEY|sha KEY|put KEY FILE

Serving: starts moto (PyPI `moto[server]`) with INITIAL_NO_AUTH_ACTION_COUNT=3, so that only
the first three requests go unauthenticated: they create an IAM user, give it S3 rights and
make its access key. The bucket is then made with that key. Writes one JSON object
{"port", "key", "secret", "bucket"} to FILE (atomically, by a rename), then serves until
SIGTERM or until its parent goes away.

Asking (a second process, signed with the account's key): prints one JSON line and exits:
  list              {"keys": {KEY: size, ...}} of the bucket
  flip KEY          flips the last byte of the object KEY; {"ok": true}
  sha KEY           {"sha256": the SHA-256 of the object KEY}
  put KEY FILE      stores FILE's bytes as the object KEY; {"ok": true}

No pipe joins the test process to the server: a long-lived pipe in a test process that spawns
children from many threads at once has had its descriptor closed and reused under it.
"""

import argparse
import hashlib
import json
import os
import signal
import socket
import sys
import threading
import time

os.environ["INITIAL_NO_AUTH_ACTION_COUNT"] = "3"

import boto3  # noqa: E402

BUCKET = "thumbgen-cache"
REGION = "us-east-1"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def watch_parent(parent):
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def client(service, account):
    return boto3.client(service, endpoint_url="http://127.0.0.1:%d" % account["port"],
                        region_name=REGION, aws_access_key_id=account["key"],
                        aws_secret_access_key=account["secret"])


def serve(account_file):
    # Foundation's Process starts children with the spawning thread's signal mask, and the
    # test runner's threads may block SIGTERM; without this it would be ignored.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    threading.Thread(target=watch_parent, args=(os.getppid(),), daemon=True).start()
    # Imported here, after the variable above is set (moto reads it on import), and only by
    # the serving process: asking needs boto3 alone.
    from moto.server import ThreadedMotoServer
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    bootstrap = {"port": port, "key": "bootstrap", "secret": "bootstrap"}
    iam = client("iam", bootstrap)
    iam.create_user(UserName="thumbgen")
    policy = {"Version": "2012-10-17",
              "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
    iam.put_user_policy(UserName="thumbgen", PolicyName="cache", PolicyDocument=json.dumps(policy))
    key = iam.create_access_key(UserName="thumbgen")["AccessKey"]
    account = {"port": port, "key": key["AccessKeyId"], "secret": key["SecretAccessKey"],
               "bucket": BUCKET}
    client("s3", account).create_bucket(Bucket=BUCKET)
    with open(account_file + ".tmp", "w") as f:
        json.dump(account, f)
    os.rename(account_file + ".tmp", account_file)
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    stopping.wait()
    os._exit(0)


def ask(account_file, words):
    with open(account_file) as f:
        account = json.load(f)
    s3 = client("s3", account)
    if words[0] == "list":
        keys = {}
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET):
            for item in page.get("Contents", []):
                keys[item["Key"]] = item["Size"]
        print(json.dumps({"keys": keys}))
    elif words[0] == "flip":
        body = bytearray(s3.get_object(Bucket=BUCKET, Key=words[1])["Body"].read())
        body[-1] ^= 0xFF
        s3.put_object(Bucket=BUCKET, Key=words[1], Body=bytes(body))
        print(json.dumps({"ok": True}))
    elif words[0] == "put":
        with open(words[2], "rb") as f:
            s3.put_object(Bucket=BUCKET, Key=words[1], Body=f.read())
        print(json.dumps({"ok": True}))
    elif words[0] == "sha":
        body = s3.get_object(Bucket=BUCKET, Key=words[1])["Body"].read()
        print(json.dumps({"sha256": hashlib.sha256(body).hexdigest()}))
    else:
        sys.exit("unknown command: %s" % words[0])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--account", required=True, help="where the account JSON is written")
    parser.add_argument("--ask", nargs="+", help="a command to run against a started server")
    args = parser.parse_args()
    if args.ask:
        ask(args.account, args.ask)
    else:
        serve(args.account)


if __name__ == "__main__":
    main()
