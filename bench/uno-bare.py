"""The least a script can do with one warm LibreOffice over UNO (what unoserver and Gotenberg run):
the benchmark's alternative to fileconv's pool (bench/libreoffice.ts).

Usage: python3 uno-bare.py <soffice.bin> <profile dir>
Starts one soffice.bin on a fresh profile, connects over a pipe, prints "ready", then for each
stdin line "<input>\t<output>" loads the document hidden, stores it as PDF, closes it and prints
"ok" (or "error <message>"). One soffice, one document at a time, no checks: a lower bound.
"""

import os
import subprocess
import sys
import time

import uno
from com.sun.star.beans import PropertyValue


def prop(name, value):
    result = PropertyValue()
    result.Name = name
    result.Value = value
    return result


def main():
    soffice, profile = sys.argv[1:3]
    pipe = "fileconv_bench_uno_%d" % os.getpid()
    office = subprocess.Popen(
        [
            soffice,
            "-env:UserInstallation=" + uno.systemPathToFileUrl(profile),
            "--headless",
            "--invisible",
            "--nologo",
            "--norestore",
            "--nodefault",
            "--nolockcheck",
            "--nofirststartwizard",
            "--accept=pipe,name=%s;urp;" % pipe,
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    try:
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
        deadline = time.monotonic() + 60
        while True:
            if office.poll() == 81:  # a fresh profile: soffice asks to be started again
                office = subprocess.Popen(office.args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
            try:
                context = resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe)
                break
            except Exception:  # noqa: BLE001 - not listening yet
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        desktop = context.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", context)
        print("ready", flush=True)
        load = (prop("Hidden", True),)
        store = (prop("FilterName", "writer_pdf_Export"),)
        for line in sys.stdin:
            source, target = line.rstrip("\n").split("\t")
            try:
                document = desktop.loadComponentFromURL(uno.systemPathToFileUrl(source), "_blank", 0, load)
                document.storeToURL(uno.systemPathToFileUrl(target), store)
                document.close(True)
                print("ok", flush=True)
            except Exception as error:  # noqa: BLE001
                print("error %s" % str(error).splitlines()[0] if str(error) else "error", flush=True)
        desktop.terminate()
    finally:
        try:
            office.wait(timeout=10)
        except Exception:  # noqa: BLE001
            office.kill()


if __name__ == "__main__":
    main()
