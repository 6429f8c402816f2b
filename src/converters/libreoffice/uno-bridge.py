"""Drives one warm LibreOffice (soffice.bin) for fileconv's LibreOffice pool (libreoffice-process.ts).

Usage: python3 uno-bridge.py <soffice.bin> <profile URL> <pipe name>

The bridge starts soffice.bin as its own child, connects to it over a UNO pipe and then serves
conversions over a JSON-lines protocol: one request per stdin line, one answer per stdout line.

  ready:    {"ready": true, "pid": <soffice pid>, "version": "7.4.7.2"}
  request:  {"id": 1, "input": "/abs", "output": "/abs", "family": "text|spreadsheet|presentation|drawing",
             "importFilter"?: str, "importOptions"?: str, "exportFilter": str, "exportOptions"?: str,
             "filterData"?: {name: bool|int|str}, "password"?: str, "landscape"?: bool}
  answer:   {"id": 1, "ok": true} or {"id": 1, "ok": false, "kind": "password|corrupt|failed", "message": str}
            or, when soffice died under the request, kind "crashed" and exit 1
  fatal:    {"fatal": str} instead of ready, then exit 1: soffice would not start

Why a child of ours and not of Node: both processes ask the kernel to SIGKILL them when their
parent dies (prctl PR_SET_PDEATHSIG), so a Node process that is killed outright still takes
its bridge, and the bridge its soffice, down with it. EOF on stdin also ends both.
"""

import ctypes
import json
import os
import signal
import subprocess
import sys
import threading
import time

import uno
import unohelper
from com.sun.star.beans import PropertyValue
from com.sun.star.task import XInteractionHandler

PR_SET_PDEATHSIG = 1
RESTART_EXIT_CODE = 81  # soffice.bin asks to be started again after creating a fresh profile
CONNECT_TIMEOUT_S = 60
SERVICES = {
    "text": "com.sun.star.text.TextDocument",
    "spreadsheet": "com.sun.star.sheet.SpreadsheetDocument",
    "presentation": "com.sun.star.presentation.PresentationDocument",
    "drawing": "com.sun.star.drawing.DrawingDocument",
}
PASSWORD_CONTINUATION = "com.sun.star.task.XInteractionPassword"
# In order of preference: never yes to a question, but acknowledge a mere notice.
ANSWERS = (
    "com.sun.star.task.XInteractionAbort",
    "com.sun.star.task.XInteractionDisapprove",
    "com.sun.star.task.XInteractionApprove",
)


def die_with_parent():
    """Asks the kernel for SIGKILL when the parent dies (Linux only; elsewhere EOF on stdin must do)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def prop(name, value):
    result = PropertyValue()
    result.Name = name
    result.Value = value
    return result


class RefusingHandler(unohelper.Base, XInteractionHandler):
    """Answers every question LibreOffice would ask a user as "no", remembering password prompts.

    A password prompt or a "repair this broken file?" offer must never wait for a person nor
    load something half-repaired: Abort when offered, else Disapprove; a request offering only
    Approve is a notice (the OK of a warning) and is acknowledged. The request itself cannot be
    read (pyuno 7.4 fails to convert the exception it carries: "returned a result with an
    exception set"), so a password prompt is recognised by the answer it asks for
    (XInteractionPassword / XInteractionPassword2).
    """

    def __init__(self):
        self.password = False

    def handle(self, request):
        offered = {}
        for continuation in request.getContinuations():
            try:
                names = [t.typeName for t in continuation.getTypes()]
            except Exception:  # noqa: BLE001 - a continuation without XTypeProvider is none we choose
                continue
            if any(name.startswith(PASSWORD_CONTINUATION) for name in names):
                self.password = True
            for answer in ANSWERS:
                if answer in names:
                    offered.setdefault(answer, continuation)
        for answer in ANSWERS:
            if answer in offered:
                offered[answer].select()
                return


class Office:
    def __init__(self, soffice, profile_url, pipe):
        self.args = [
            soffice,
            "-env:UserInstallation=" + profile_url,
            "--headless",
            "--invisible",
            "--nologo",
            "--norestore",
            "--nodefault",
            "--nolockcheck",
            "--nofirststartwizard",
            "--accept=pipe,name=%s;urp;" % pipe,
        ]
        self.pipe = pipe
        self.process = None
        self.desktop = None

    def spawn(self):
        # soffice's stdout is not ours to share: it would corrupt the protocol.
        self.process = subprocess.Popen(
            self.args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, preexec_fn=die_with_parent
        )

    def start(self):
        self.spawn()
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
        deadline = time.monotonic() + CONNECT_TIMEOUT_S
        restarts = 0
        while True:
            code = self.process.poll()
            if code == RESTART_EXIT_CODE and restarts < 2:
                restarts += 1
                self.spawn()
            elif code is not None:
                raise RuntimeError("soffice exited with code %d while starting" % code)
            try:
                context = resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % self.pipe)
                break
            except Exception:  # noqa: BLE001 - NoConnectException until soffice listens
                if time.monotonic() > deadline:
                    raise RuntimeError("soffice did not accept a connection within %d s" % CONNECT_TIMEOUT_S)
                time.sleep(0.05)
        self.desktop = context.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", context)
        return context

    def exit_with_soffice(self):
        code = self.process.wait()
        os._exit(3 if code else 0)

    def stop(self):
        """Ends soffice and reaps it, so no zombie outlives the bridge: terminate, else kill."""
        if self.process is None or self.process.poll() is not None:
            return
        try:
            if self.desktop is not None:
                self.desktop.terminate()
            self.process.wait(timeout=10)
        except Exception:  # noqa: BLE001 - terminate failed (soffice gone or hung): kill
            self.process.kill()
            self.process.wait()

    def version(self, context):
        try:
            provider = context.ServiceManager.createInstanceWithContext(
                "com.sun.star.configuration.ConfigurationProvider", context
            )
            node = provider.createInstanceWithArguments(
                "com.sun.star.configuration.ConfigurationAccess", (prop("nodepath", "/org.openoffice.Setup/Product"),)
            )
            return node.getByName("ooSetupVersionAboutBox")
        except Exception:  # noqa: BLE001 - the version is informative only
            return None

    def raise_if_gone(self, error):
        """A lost connection is no answer about the document: the worker is lost, say so.

        soffice killed under a call shows as "Binary URP bridge disposed during call"; its exit
        status may not be there yet, so the message counts as much as the process's state.
        """
        text = "%s %s" % (type(error).__name__, error)
        if "Disposed" in text or "disposed" in text or self.process.poll() is not None:
            raise error

    @staticmethod
    def unreadable(handler, detail):
        if handler.password:
            return failure("password", "The file is password-protected")
        return failure("corrupt", "LibreOffice could not open the file" + detail)

    def convert(self, request):
        handler = RefusingHandler()
        # Hidden: no window. ReadOnly: no lock file beside the input. MacroExecutionMode 0
        # (NEVER_EXECUTE) and UpdateDocMode 0 (NO_UPDATE): no macro runs, no link is refreshed.
        load = [
            prop("Hidden", True),
            prop("ReadOnly", True),
            prop("MacroExecutionMode", 0),
            prop("UpdateDocMode", 0),
            prop("InteractionHandler", handler),
        ]
        if request.get("password"):
            load.append(prop("Password", request["password"]))
        if request.get("importFilter"):
            load.append(prop("FilterName", request["importFilter"]))
            load.append(prop("FilterOptions", request.get("importOptions", "")))
        url = uno.systemPathToFileUrl(request["input"])
        try:
            document = self.desktop.loadComponentFromURL(url, "_blank", 0, tuple(load))
        except Exception as error:  # noqa: BLE001 - IOException, IllegalArgumentException, ...
            self.raise_if_gone(error)
            return self.unreadable(handler, ": " + message_of(error))
        if document is None:
            return self.unreadable(handler, "")
        try:
            expected = SERVICES.get(request["family"])
            if expected and not document.supportsService(expected):
                return failure("corrupt", "The file did not open as a %s document" % request["family"])
            if request.get("landscape"):
                turn_landscape(document, request["family"])
            store = [prop("FilterName", request["exportFilter"]), prop("Overwrite", True)]
            if request.get("exportOptions"):
                store.append(prop("FilterOptions", request["exportOptions"]))
            if request.get("filterData"):
                store.append(prop("FilterData", filter_data(request["filterData"])))
            try:
                document.storeToURL(uno.systemPathToFileUrl(request["output"]), tuple(store))
            except Exception as error:  # noqa: BLE001 - IOException / ErrorCodeIOException from the filter
                self.raise_if_gone(error)
                return failure("failed", "LibreOffice could not write the result: %s" % message_of(error))
            return {"ok": True}
        finally:
            try:
                document.close(True)
            except Exception:  # noqa: BLE001 - CloseVetoException / already disposed: dispose instead
                try:
                    document.dispose()
                except Exception:  # noqa: BLE001, S110 - nothing more can be done for it
                    pass


def filter_data(values):
    """The export filter's FilterData: typed as a sequence of PropertyValue, which pyuno cannot infer from a tuple."""
    props = tuple(prop(name, value) for name, value in values.items())
    return uno.Any("[]com.sun.star.beans.PropertyValue", props)


def turn_landscape(document, family):
    """Lays every page out landscape: the PDF export has no orientation flag of its own.

    Writer and Calc pages follow their page styles (IsLandscape with width and height swapped, as
    the page dialog does); Impress and Draw pages share one size, set on each page. A page that is
    already wider than tall is left as it is.
    """
    if family in ("text", "spreadsheet"):
        styles = document.getStyleFamilies().getByName("PageStyles")
        pages = [styles.getByName(name) for name in styles.getElementNames()]
    else:
        pages = [document.getDrawPages().getByIndex(i) for i in range(document.getDrawPages().getCount())]
    for page in pages:
        width, height = page.Width, page.Height
        if width >= height:
            continue
        if family in ("text", "spreadsheet"):
            page.IsLandscape = True
        page.Width, page.Height = height, width


def failure(kind, message):
    return {"ok": False, "kind": kind, "message": message}


def message_of(error):
    text = getattr(error, "Message", None) or str(error)
    return text.strip().splitlines()[0] if text.strip() else type(error).__name__


def main():
    die_with_parent()
    # The parent may have died before prctl took effect; we would then have been re-parented.
    parent = os.environ.get("FILECONV_BRIDGE_PARENT")
    if parent and os.getppid() != int(parent):
        return 1
    soffice, profile_url, pipe = sys.argv[1:4]
    office = Office(soffice, profile_url, pipe)
    try:
        return serve(office)
    finally:
        office.stop()


def serve(office):
    try:
        context = office.start()
    except Exception as error:  # noqa: BLE001
        send({"fatal": message_of(error)})
        return 1
    send({"ready": True, "pid": office.process.pid, "version": office.version(context)})
    # soffice dying while we wait for a request (crash, OOM killer) must end the bridge at once,
    # so the pool sees the worker gone and starts a fresh one instead of failing the next job.
    threading.Thread(target=office.exit_with_soffice, daemon=True).start()
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            answer = office.convert(request)
        except Exception as error:  # noqa: BLE001 - the connection is gone: report and stop
            send({"id": request.get("id"), "ok": False, "kind": "crashed", "message": message_of(error)})
            return 1
        answer["id"] = request.get("id")
        send(answer)
    return 0  # stdin closed: the owner is done with us


if __name__ == "__main__":
    sys.exit(main())
