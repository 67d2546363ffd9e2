#!/usr/bin/env python3
"""The paper's 134 ALFWorld games over AgentGym's agentenv-alfworld HTTP protocol.

ReAct's alfworld.ipynb plays the 134 games of valid_unseen (eval_out_of_distribution) in the
loader's order. AgentGym's agentenv-alfworld server speaks a convenient HTTP protocol but numbers
other games (train and valid_train). This server speaks the same protocol over the paper's games,
game id i being entry i of eval_out_of_distribution_134_games.json (beside this file), and sends
the same cleaned text as agentenv-alfworld (the notebook's clean-ups: the opening's first
paragraph dropped, "You arrive at loc N. " removed), so one client serves both.

Routes (JSON):
  GET  /                         "This is environment AlfWorld."
  GET  /info                     alfworld version, game count, sha256 of the game list, counts per type
  POST /create                   {} -> {"id": int}
  POST /reset                    {"id", "game", "world_type": "Text"} -> {"id", "observation",
                                 "available_actions", "task_type": "<task dir>/<trial>"}
  POST /step                     {"id", "action"} -> {"observation", "reward" (won), "available_actions", "done"}
  POST /close                    {"id"} -> {"id", "closed": true}   (frees the env; agentenv-alfworld lacks it)
  GET  /observation?id=, /available_actions?id=, /detail?id=
Environment failures come back as HTTP 200 {"error": "..."}, as agentenv-alfworld sends them
(stepping a finished game is one).

It needs alfworld 0.3.3 (0.4.0 renamed "put X in/on Y" and changed the go-to feedback the paper's
prompts assume) and refuses to start unless it finds exactly the 134 games (some data releases
lack "solvable" in two game files and load 132: alfworld issue 98). Standard library only, apart
from alfworld itself. See README.md beside this file.
"""
import argparse
import hashlib
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

REQUIRED_ALFWORLD = "0.3.3"
EXPECTED_GAMES = 134
HERE = os.path.dirname(os.path.abspath(__file__))
GAMES_FILE = os.path.join(HERE, "eval_out_of_distribution_134_games.json")

# alfworld.ipynb's `prefixes`, in its order.
TASK_PREFIXES = [
    ("pick_and_place", "put"),
    ("pick_clean_then_place", "clean"),
    ("pick_heat_then_place", "heat"),
    ("pick_cool_then_place", "cool"),
    ("look_at_obj", "examine"),
    ("pick_two_obj", "puttwo"),
]


def task_type_of(game):
    for prefix, short in TASK_PREFIXES:
        if game.startswith(prefix):
            return short
    return None


def games_sha256(games):
    """sha256 of the names joined by "\\n" (the client computes the same)."""
    return hashlib.sha256("\n".join(games).encode("utf-8")).hexdigest()


def clean_opening(ob):
    """The notebook: '\\n'.join(ob.split('\\n\\n')[1:])."""
    return "\n".join(ob.split("\n\n")[1:])


def process_ob(ob):
    """The notebook's process_ob: drop a leading "You arrive at loc N. "."""
    if ob.startswith("You arrive at loc "):
        ob = ob[ob.find(". ") + 2:]
    return ob


def game_name(game_file):
    """"<task dir>/<trial>" of .../valid_unseen/<task dir>/<trial>/game.tw-pddl."""
    parts = os.path.normpath(game_file).split(os.sep)
    return "/".join(parts[-3:-1])


def default_config(max_steps):
    """The keys of alfworld 0.3.3's configs/base_config.yaml that AlfredTWEnv reads (TextWorld only)."""
    return {
        "dataset": {
            "data_path": "$ALFWORLD_DATA/json_2.1.1/train",
            "eval_id_data_path": "$ALFWORLD_DATA/json_2.1.1/valid_seen",
            "eval_ood_data_path": "$ALFWORLD_DATA/json_2.1.1/valid_unseen",
            "num_train_games": -1,
            "num_eval_games": -1,
        },
        "logic": {
            "domain": "$ALFWORLD_DATA/logic/alfred.pddl",
            "grammar": "$ALFWORLD_DATA/logic/alfred.twl2",
        },
        "env": {
            "type": "AlfredTWEnv",
            "domain_randomization": False,
            "task_types": [1, 2, 3, 4, 5, 6],
            "expert_timeout_steps": 150,
            "expert_type": "handcoded",
            "goal_desc_human_anns_prob": 0.0,
        },
        "general": {"random_seed": 42, "training_method": "dagger"},
        "rl": {"training": {"max_nb_steps_per_episode": max_steps}},
        "dagger": {"training": {"max_nb_steps_per_episode": max_steps}},
    }


def load_config(path, max_steps):
    if not path:
        return default_config(max_steps)
    import yaml  # alfworld depends on PyYAML; only needed for --config

    with open(path) as f:
        return yaml.safe_load(f)


def dist_version(name):
    try:
        from importlib.metadata import version

        return version(name)
    except Exception:
        return None


def alfworld_version():
    try:
        from alfworld.info import __version__

        return __version__
    except ImportError:
        pass
    return dist_version("alfworld")


class GameLibrary:
    """The paper's 134 games: names in the vendored order, each with its game file."""

    def __init__(self, config, games_file=GAMES_FILE):
        from alfworld.agents.environment import AlfredTWEnv

        with open(games_file) as f:
            self.names = json.load(f)
        # The loader the notebook used: every solvable game of valid_unseen.
        loader = AlfredTWEnv(config, train_eval="eval_out_of_distribution")
        found = {game_name(p): p for p in loader.game_files}
        expected = set(self.names)
        missing = sorted(expected - set(found))
        unexpected = sorted(set(found) - expected)
        if len(found) != EXPECTED_GAMES or len(self.names) != EXPECTED_GAMES or missing or unexpected:
            data = os.path.expandvars(config["dataset"]["eval_ood_data_path"])
            lines = [
                f"refusing to start: found {len(found)} games in {data}, expected exactly {EXPECTED_GAMES}, "
                f"the paper's valid_unseen games ({os.path.basename(games_file)})."
            ]
            if missing:
                lines.append(f"  missing ({len(missing)}): " + ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else ""))
            if unexpected:
                lines.append(f"  unexpected ({len(unexpected)}): " + ", ".join(unexpected[:5]) + (" ..." if len(unexpected) > 5 else ""))
            lines.append(
                "  Some data releases lack \"solvable\" in two game files and load 132 (alfworld issue 98): "
                "install alfworld 0.3.3 and run alfworld-download (README.md)."
            )
            raise SystemExit("\n".join(lines))
        self.files = [found[n] for n in self.names]
        self.sha256 = games_sha256(self.names)
        self.counts = {short: 0 for _, short in TASK_PREFIXES}
        for n in self.names:
            self.counts[task_type_of(n)] += 1


class Slot:
    def __init__(self):
        self.lock = threading.Lock()
        self.env = None
        self.game = None
        self.observation = ""
        self.available_actions = []
        self.done = False
        self.reward = 0.0
        self.deleted = False


class Household:
    """The environments, one per id, as agentenv-alfworld keeps them."""

    def __init__(self, config, library, observations):
        self.config = config
        self.library = library
        self.observations = observations
        self.slots = {}
        self.next_id = 0
        self.lock = threading.Lock()

    def _one_game_env(self, game_file):
        from alfworld.agents.environment import AlfredTWEnv

        class OneGame(AlfredTWEnv):
            # AlfredTWEnv.__init__ walks the whole split; init_env only needs these fields.
            def __init__(self, config, game_file):
                self.config = config
                self.train_eval = "eval_out_of_distribution"
                self.game_files = [game_file]
                self.num_games = 1

        return OneGame(self.config, game_file).init_env(batch_size=1)

    def _slot(self, env_id, for_step=False):
        slot = self.slots.get(env_id) if isinstance(env_id, int) else None
        if slot is None:
            raise LookupError(f"The id {env_id} is not valid.")
        if slot.deleted:
            raise LookupError(f"The task with environment {env_id} has been deleted.")
        if for_step and slot.done:
            raise LookupError(f"The task with environment {env_id} has finished.")
        return slot

    def create(self):
        with self.lock:
            env_id = self.next_id
            self.next_id += 1
            self.slots[env_id] = Slot()
        return {"id": env_id}

    def reset(self, env_id, game, world_type):
        if world_type != "Text":
            return {"error": 'world_type must be "Text" (this server runs the TextWorld games only)'}
        slot = self._slot(env_id)
        if not isinstance(game, int) or isinstance(game, bool) or not 0 <= game < len(self.library.files):
            return {"error": f"game must be an integer in 0..{len(self.library.files) - 1}, got {game!r}"}
        with slot.lock:
            if slot.env is not None:
                slot.env.close()
                slot.env = None
            slot.env = self._one_game_env(self.library.files[game])
            obs, info = slot.env.reset()
            raw = obs[0]
            name = game_name(info["extra.gamefile"][0])
            slot.game = game
            slot.observation = raw if self.observations == "raw" else clean_opening(raw)
            slot.available_actions = list(info.get("admissible_commands", [[]])[0])
            slot.done = False
            slot.reward = 0.0
            return {"id": env_id, "observation": slot.observation, "available_actions": slot.available_actions, "task_type": name}

    def step(self, env_id, action):
        slot = self._slot(env_id, for_step=True)
        with slot.lock:
            if slot.env is None:
                return {"error": f"environment {env_id} has no game: POST /reset first"}
            obs, _scores, dones, infos = slot.env.step([action])
            raw = obs[0]
            slot.observation = raw if self.observations == "raw" else process_ob(raw)
            # Success is the won flag; done also comes at the step limit (alfworld issue 51).
            slot.reward = float(infos["won"][0])
            slot.done = bool(dones[0])
            slot.available_actions = list(infos.get("admissible_commands", [[]])[0])
            return {"observation": slot.observation, "reward": slot.reward, "available_actions": slot.available_actions, "done": slot.done}

    def close(self, env_id):
        slot = self._slot(env_id)
        with slot.lock:
            if slot.env is not None:
                slot.env.close()
                slot.env = None
            slot.deleted = True
        return {"id": env_id, "closed": True}

    def detail(self, env_id):
        slot = self._slot(env_id)
        return {
            "world_type": "Text",
            "game": slot.game,
            "observation": slot.observation,
            "available_actions": slot.available_actions,
            "done": slot.done,
            "reward": slot.reward,
            "deleted": slot.deleted,
        }


def make_handler(household, info, verbose):
    class Handler(BaseHTTPRequestHandler):
        server_version = "react-repro-alfworld/1"

        def log_message(self, fmt, *args):
            if verbose:
                sys.stderr.write("%s - %s\n" % (self.address_string(), fmt % args))

        def _send(self, status, payload):
            body = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _body(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if not raw:
                return {}
            data = json.loads(raw.decode("utf-8"))
            if not isinstance(data, dict):
                raise ValueError("the body must be a JSON object")
            return data

        def _guard(self, fn):
            # As agentenv-alfworld: an environment failure is an HTTP 200 {"error"}.
            try:
                self._send(200, fn())
            except Exception as e:  # noqa: BLE001 - every failure goes back to the client
                self._send(200, {"error": str(e) or type(e).__name__})

        def do_GET(self):
            url = urlparse(self.path)
            query = parse_qs(url.query)
            if url.path == "/":
                return self._send(200, "This is environment AlfWorld.")
            if url.path == "/info":
                return self._send(200, info)
            if url.path in ("/observation", "/available_actions", "/detail"):
                try:
                    env_id = int(query.get("id", [""])[0])
                except ValueError:
                    return self._send(422, {"detail": "id: an integer query parameter is required"})
                field = url.path[1:]
                if field == "detail":
                    return self._guard(lambda: household.detail(env_id))
                return self._guard(lambda: household.detail(env_id)[field])
            return self._send(404, {"detail": "Not Found"})

        def do_POST(self):
            url = urlparse(self.path)
            try:
                body = self._body()
            except (ValueError, UnicodeDecodeError) as e:
                return self._send(422, {"detail": f"malformed JSON body: {e}"})
            if url.path == "/create":
                return self._guard(household.create)
            if url.path == "/reset":
                if not isinstance(body.get("id"), int) or "game" not in body or not isinstance(body.get("world_type"), str):
                    return self._send(422, {"detail": 'expected {"id": int, "game": int, "world_type": str}'})
                return self._guard(lambda: household.reset(body["id"], body["game"], body["world_type"]))
            if url.path == "/step":
                if not isinstance(body.get("id"), int) or not isinstance(body.get("action"), str):
                    return self._send(422, {"detail": 'expected {"id": int, "action": str}'})
                return self._guard(lambda: household.step(body["id"], body["action"]))
            if url.path == "/close":
                if not isinstance(body.get("id"), int):
                    return self._send(422, {"detail": 'expected {"id": int}'})
                return self._guard(lambda: household.close(body["id"]))
            return self._send(404, {"detail": "Not Found"})

    return Handler


def main(argv=None):
    ap = argparse.ArgumentParser(description="The paper's 134 ALFWorld games over the agentenv-alfworld HTTP protocol.")
    ap.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    ap.add_argument("--port", type=int, default=36001, help="port (default 36001; 0 picks a free one)")
    ap.add_argument("--observations", choices=["clean", "raw"], default="clean",
                    help="clean (default): as agentenv-alfworld sends them; raw: TextWorld's text as is")
    ap.add_argument("--config", help="an alfworld YAML config (default: the keys of alfworld 0.3.3's base_config.yaml)")
    ap.add_argument("--max-steps", type=int, default=50, help="the env's step limit, max_nb_steps_per_episode (default 50)")
    ap.add_argument("--verbose", action="store_true", help="log every request")
    args = ap.parse_args(argv)

    version = alfworld_version()
    if version is None:
        raise SystemExit("refusing to start: the alfworld package is not installed (pip install alfworld==0.3.3; see README.md)")
    if version != REQUIRED_ALFWORLD:
        raise SystemExit(
            f"refusing to start: alfworld {version} is installed, the paper's prompts need {REQUIRED_ALFWORLD} "
            "(0.4.0 renamed \"put X in/on Y\" and changed the go-to feedback): pip install alfworld==0.3.3"
        )
    config = load_config(args.config, args.max_steps)
    library = GameLibrary(config)
    household = Household(config, library, args.observations)
    counts = ", ".join(f"{k} {v}" for k, v in library.counts.items())
    print(f"alfworld {version}: {len(library.names)} games of valid_unseen ({counts})", flush=True)
    info = {
        "server": "react-repro envs/alfworld/server.py",
        "protocol": "agentenv-alfworld",
        "alfworld_version": version,
        # TextWorld runs the games; alfworld 0.3.3 accepts a range of versions, so record it.
        "textworld_version": dist_version("textworld"),
        "split": "valid_unseen (eval_out_of_distribution)",
        "n_games": len(library.names),
        "games_sha256": library.sha256,
        "task_type_counts": library.counts,
        "observations": args.observations,
        "max_steps": args.max_steps,
    }
    httpd = ThreadingHTTPServer((args.host, args.port), make_handler(household, info, args.verbose))
    httpd.daemon_threads = True
    host, port = httpd.server_address[:2]
    print(f"listening on http://{host}:{port}", flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()


if __name__ == "__main__":
    main()
