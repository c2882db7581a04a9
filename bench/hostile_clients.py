"""Hostile connections for bench/hostile.sh: slowloris clients that drip a header that never ends,
and idle keep-alive clients that send one request and then hold the connection. Each reconnects
when the server closes it, as an attacker would. Runs until killed; prints what it saw on SIGTERM.

    python3 bench/hostile_clients.py HOST PORT SLOWLORIS IDLE
"""
import asyncio
import signal
import sys

stats = {"opened": 0, "closed_by_server": 0, "refused": 0}


async def connect(host, port):
    """A connection, or None (counted) when the server refused it."""
    try:
        connection = await asyncio.open_connection(host, port)
    except OSError:
        stats["refused"] += 1
        await asyncio.sleep(1)
        return None
    stats["opened"] += 1
    return connection


async def slowloris(host, port, stop):
    while not stop.is_set():
        connection = await connect(host, port)
        if connection is None:
            continue
        reader, writer = connection
        try:
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            while not stop.is_set():
                await asyncio.sleep(2)
                writer.write(b"X-Drip: 1\r\n")  # never the blank line that ends the header
                await writer.drain()
                if reader.at_eof():
                    break
        except OSError:
            pass
        stats["closed_by_server"] += 1
        writer.close()


async def idle_keep_alive(host, port, stop):
    while not stop.is_set():
        connection = await connect(host, port)
        if connection is None:
            continue
        reader, writer = connection
        try:
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            await writer.drain()
            await reader.readuntil(b"}")  # the health answer's JSON body
            await reader.read(1)  # idle until the server closes it
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        stats["closed_by_server"] += 1
        writer.close()


async def main(host, port, slow, idle):
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    tasks = []
    for i in range(max(slow, idle)):  # interleaved, a few hundred per 0.1 s
        if i < slow:
            tasks.append(asyncio.create_task(slowloris(host, port, stop)))
        if i < idle:
            tasks.append(asyncio.create_task(idle_keep_alive(host, port, stop)))
        if i % 250 == 249:
            await asyncio.sleep(0.1)
    await stop.wait()
    for t in tasks:
        t.cancel()
    print(f"hostile clients: {stats['opened']} connections opened, {stats['closed_by_server']} closed "
          f"by the server, {stats['refused']} refused", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])))
