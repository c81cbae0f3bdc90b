// tests/sovia_apps/node_http.js: a file server in node's own http module (libuv: epoll, its
// threads, descriptors closed with syscall(SYS_close)), for apps.sh under the shim.
//   node node_http.js PORT DIR    GET /NAME sends DIR/NAME; POST answers the body's length.
'use strict';
const http = require('http');
const fs = require('fs');
const path = require('path');
const [port, dir] = [Number(process.argv[2]), process.argv[3]];
process.on('SIGTERM', () => process.exit(0));
http.createServer((req, res) => {
  if (req.method === 'POST') {
    let n = 0;
    req.on('data', (d) => { n += d.length; });
    req.on('end', () => res.end(`${n}\n`));
    return;
  }
  const file = path.join(dir, path.basename(req.url));
  fs.stat(file, (err, st) => {
    if (err) { res.statusCode = 404; res.end(); return; }
    res.setHeader('Content-Length', st.size);
    fs.createReadStream(file).pipe(res);
  });
}).listen(port, '0.0.0.0', () => console.log('listening'));
