#!/usr/bin/env python3
"""cdp.py - load a report.html in headless Chromium over the DevTools
protocol (--remote-debugging-pipe, fds 3 and 4: no package beyond python3)
and say what the browser saw:

  cdp.py CHROME REPORT.html SHOT.png OUT.json [HEAT.png]

SHOT.png: the whole page (at most 16,000 px high). OUT.json: the console
errors, exceptions and failed loads; every request; each element with an
id and its drawn size; the page's language, charset, title, scripts,
images and height; each svg.heat (the Nodes section's heatmaps) with its
box in page coordinates and its rect count. HEAT.png, when given: the
first heatmap alone, captured by its box wherever it is on the page.
Exit 0, or 3 when Chromium could not be driven (the reason printed).
Used by test_report_html and test_lab.
"""
import base64, fcntl, json, os, subprocess, sys, tempfile, time
chrome, html, shot, outp = sys.argv[1:5]
heat_shot = sys.argv[5] if len(sys.argv) > 5 else None
url = 'file://' + os.path.abspath(html)
prof = tempfile.mkdtemp(prefix='gl-chromium-')
r_cmd, w_cmd = os.pipe()
r_ev, w_ev = os.pipe()
def child_fds():
    a = fcntl.fcntl(r_cmd, fcntl.F_DUPFD, 10)
    b = fcntl.fcntl(w_ev, fcntl.F_DUPFD, 10)
    os.dup2(a, 3); os.dup2(b, 4); os.close(a); os.close(b)
p = subprocess.Popen([chrome, '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
                      '--disable-background-networking', '--disable-dev-shm-usage', '--disable-extensions',
                      '--disable-sync', '--disable-default-apps', '--disable-component-update',
                      '--no-default-browser-check', '--hide-scrollbars', '--mute-audio',
                      '--user-data-dir=' + prof, '--remote-debugging-pipe', 'about:blank'],
                     preexec_fn=child_fds, pass_fds=(3, 4), stdout=subprocess.DEVNULL,
                     stderr=open(os.path.join(prof, 'stderr.log'), 'w'))
os.close(r_cmd); os.close(w_ev)
wf, rf = os.fdopen(w_cmd, 'wb', buffering=0), os.fdopen(r_ev, 'rb', buffering=0)
buf, seq, events, deadline = b'', 0, [], time.time() + 90
def die(msg):
    try: sys.stderr.write(open(os.path.join(prof, 'stderr.log')).read()[-2000:])
    except Exception: pass
    print('cdp: ' + msg); p.kill(); sys.exit(3)
def read_msg():
    global buf
    while b'\0' not in buf:
        if time.time() > deadline: die('timed out waiting for chromium')
        c = rf.read(1 << 16)
        if not c: die('chromium closed the pipe')
        buf += c
    m, buf = buf.split(b'\0', 1)
    return json.loads(m)
def send(method, params=None, session=None):
    global seq
    seq += 1
    msg = {'id': seq, 'method': method, 'params': params or {}}
    if session: msg['sessionId'] = session
    wf.write(json.dumps(msg).encode() + b'\0')
    while True:
        m = read_msg()
        if m.get('id') == seq:
            if 'error' in m: die('%s: %s' % (method, m['error']))
            return m.get('result', {})
        events.append(m)
def wait_event(name):
    while True:
        for i, m in enumerate(events):
            if m.get('method') == name: return events.pop(i)
        events.append(read_msg())
def evaluate(expr, sid):
    return json.loads(send('Runtime.evaluate', {'expression': expr, 'returnByValue': True}, sid)['result']['value'])
tid = send('Target.createTarget', {'url': 'about:blank'})['targetId']
sid = send('Target.attachToTarget', {'targetId': tid, 'flatten': True})['sessionId']
for dom in ('Page', 'Runtime', 'Log', 'Network'):
    send(dom + '.enable', {}, sid)
send('Page.setLifecycleEventsEnabled', {'enabled': True}, sid)
send('Emulation.setDeviceMetricsOverride', {'width': 1280, 'height': 900, 'deviceScaleFactor': 1, 'mobile': False}, sid)
events.clear()
loader = send('Page.navigate', {'url': url}, sid).get('loaderId')
wait_event('Page.loadEventFired')
# the page's loads all done (or failed: their events are in by then):
# Chromium's networkIdle for this navigation
def wait_lifecycle(name):
    while True:
        for i, m in enumerate(events):
            prm = m.get('params', {})
            if m.get('method') == 'Page.lifecycleEvent' and prm.get('name') == name and prm.get('loaderId') == loader:
                return events.pop(i)
        events.append(read_msg())
wait_lifecycle('networkIdle')
# a frame drawn since (two animation frames: the one after this script)
def next_frame():
    send('Runtime.evaluate', {'expression': 'new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))',
                              'awaitPromise': True, 'returnByValue': True}, sid)
next_frame()
ids = evaluate("JSON.stringify(Array.from(document.querySelectorAll('[id]')).map(e => { const b = e.getBoundingClientRect(); return [e.id, e.tagName.toLowerCase(), Math.round(b.width), Math.round(b.height)]; }))", sid)
info = evaluate("JSON.stringify({lang: document.documentElement.lang, charset: document.characterSet, title: document.title, scripts: document.scripts.length, images: document.images.length, height: document.documentElement.scrollHeight})", sid)
send('Emulation.setDeviceMetricsOverride', {'width': 1280, 'height': min(max(int(info['height']), 900), 16000), 'deviceScaleFactor': 1, 'mobile': False}, sid)
next_frame()   # drawn at the new size
open(shot, 'wb').write(base64.b64decode(send('Page.captureScreenshot', {'format': 'png', 'captureBeyondViewport': True}, sid)['data']))
heat = evaluate("JSON.stringify(Array.from(document.querySelectorAll('svg.heat')).map(e => { const b = e.getBoundingClientRect(); return [Math.round(b.left + window.scrollX), Math.round(b.top + window.scrollY), Math.round(b.width), Math.round(b.height), e.querySelectorAll('rect').length]; }))", sid)
if heat_shot and heat:
    x, y, w, h, _ = heat[0]
    open(heat_shot, 'wb').write(base64.b64decode(send('Page.captureScreenshot', {'format': 'png', 'captureBeyondViewport': True,
        'clip': {'x': x, 'y': y, 'width': max(w, 1), 'height': max(h, 1), 'scale': 1}}, sid)['data']))
errors, requests = [], []
for m in events:
    meth, prm = m.get('method'), m.get('params', {})
    if meth == 'Runtime.consoleAPICalled' and prm.get('type') in ('error', 'assert', 'warning'):
        errors.append('console.%s: %s' % (prm['type'], ' '.join(str(a.get('value', a.get('description', ''))) for a in prm.get('args', []))))
    elif meth == 'Runtime.exceptionThrown':
        errors.append('exception: %s' % prm.get('exceptionDetails', {}).get('text'))
    elif meth == 'Log.entryAdded' and prm.get('entry', {}).get('level') in ('error', 'warning'):
        e = prm['entry']
        errors.append('log.%s (%s): %s %s' % (e['level'], e.get('source'), e.get('text'), e.get('url', '')))
    elif meth == 'Network.requestWillBeSent':
        requests.append(prm['request']['url'])
    elif meth == 'Network.loadingFailed':
        errors.append('network: loading failed: %s' % prm.get('errorText'))
json.dump({'url': url, 'errors': errors, 'requests': requests, 'ids': ids, 'info': info, 'heat': heat}, open(outp, 'w'), indent=1)
try:
    send('Browser.close')
except SystemExit:
    pass
try: p.wait(timeout=10)
except Exception: p.kill()
subprocess.run(['rm', '-rf', prof])
