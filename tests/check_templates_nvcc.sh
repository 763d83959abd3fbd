#!/usr/bin/env bash
# check_templates_nvcc.sh -- compile kernel templates with nvcc, no GPU needed.
#
# A quick local sanity check of templates/NAME.cu + NAME.ini: enumerates the
# parameter space of each manifest, keeps the configurations that pass its
# [constraints] for at least one of its [sizes] and fit the block-size and
# shared-memory limits of an H100/H200, and compiles a sample of them (or
# all with --all) with
#     nvcc -cubin -arch=sm_90 -std=c++17 -DNAME=VALUE ... -Xptxas -v
# reporting the registers and spills of the tuned kernel. The authoritative
# per-configuration check is `autotune check` (NVRTC with the tuner's own
# flags); nvcc adds its implicit cuda_runtime.h, so a template that leans on
# a host header passes here and fails there.
#
# Usage: tests/check_templates_nvcc.sh [options] [NAME...]
#   --all          compile every valid configuration (matmul: 407)
#   -n N           configurations per template in sample mode (default 24):
#                  the default configuration plus evenly spaced valid ones
#   -j JOBS        parallel nvcc processes (default: nproc)
#   --templates D  template folder (default: templates/ beside tests/)
#   --arch A       target (default sm_90)
#   --spills-fail  count a configuration that spills registers as a failure
#   -v             list every configuration, not only failures and spills
# Exit status: 0 all compiled, 1 a valid configuration failed, 2 bad usage
# or manifest, 77 nvcc not found (skip).
#
# Expressions are evaluated with bash arithmetic (int64, C operators, ?:)
# after cdiv/min/max are rewritten into plain operators. All of this
# script's own variables start with '_' so that they cannot collide with
# parameter, size or device names.

set -u -o pipefail

# --- one compile (run by xargs through this same script) ----------------
if [ "${1:-}" = "--compile-one" ]; then
    # $2: -D options; _CU, _ARCH, _KERNEL, _WORK from the environment
    _log=$(mktemp "$_WORK/log.XXXXXX")
    # shellcheck disable=SC2086
    if nvcc -cubin -arch="$_ARCH" -std=c++17 $2 -Xptxas -v "$_CU" \
        -o "$_log.cubin" >"$_log" 2>&1; then
        # ptxas prints, per entry function: "Compiling entry function 'X'",
        # "N bytes stack frame, S bytes spill stores, L bytes spill loads",
        # "Used R registers, ...".
        _res=$(awk -v k="'$_KERNEL'" '
            /Compiling entry function/ { cur = index($0, k) > 0 }
            cur && /spill stores/ { spill = $5 + $9 }
            cur && /Used [0-9]+ registers/ {
                for (i = 1; i <= NF; i++) if ($i == "Used") regs = $(i + 1)
            }
            END { printf "%s %s", (regs == "" ? "?" : regs), spill + 0 }' "$_log")
        echo "ok $_res $2"
    else
        echo "FAIL - - $2"
        sed 's/^/        /' "$_log" | grep -v '^ *ptxas info' | head -20
    fi
    rm -f "$_log" "$_log.cubin"
    exit 0
fi

_here=$(cd "$(dirname "$0")" && pwd)
_self="$_here/$(basename "$0")"
_tdir="$_here/../templates"
_all=0
_nsample=24
_jobs=$(nproc 2>/dev/null || echo 4)
_arch=sm_90
_spills_fail=0
_verbose=0
_names=()

while [ $# -gt 0 ]; do
    case "$1" in
    --all) _all=1 ;;
    -n) _nsample=${2:?-n needs a number}; shift ;;
    -j) _jobs=${2:?-j needs a number}; shift ;;
    --templates) _tdir=${2:?--templates needs a folder}; shift ;;
    --arch) _arch=${2:?--arch needs a target}; shift ;;
    --spills-fail) _spills_fail=1 ;;
    -v) _verbose=1 ;;
    -h | --help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) _names+=("$1") ;;
    esac
    shift
done
[ "$_nsample" -ge 1 ] 2>/dev/null || { echo "-n needs N >= 1" >&2; exit 2; }

if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
    PATH=/usr/local/cuda/bin:$PATH
fi
command -v nvcc >/dev/null 2>&1 || { echo "nvcc not found: skipped"; exit 77; }

if [ ${#_names[@]} -eq 0 ]; then
    for _f in "$_tdir"/*.ini; do
        _b=$(basename "$_f" .ini)
        [ -f "$_tdir/$_b.cu" ] && _names+=("$_b")
    done
fi

# Device attributes of an H100/H200 (sm_90), as the tuner reads them.
sm_count=132
max_threads_per_block=1024
max_shared_per_block=232448
warp_size=32
cc=90
l2_bytes=52428800

# --- expressions ---------------------------------------------------------

# _rewrite EXPR: prints EXPR with cdiv(a,b), min(a,b) and max(a,b) turned
# into bash arithmetic (recursively: arguments may hold calls).
_rewrite() {
    local _s=$1 _out="" _fn _i _c _depth _comma _a _b _pre _rest
    while [[ $_s =~ (^|[^A-Za-z0-9_])(cdiv|min|max)[[:space:]]*\( ]]; do
        _pre=${_s%%"${BASH_REMATCH[0]}"*}${BASH_REMATCH[1]}
        _fn=${BASH_REMATCH[2]}
        _rest=${_s:${#_pre}}
        _rest=${_rest#*(}
        _depth=1 _comma=-1
        for ((_i = 0; _i < ${#_rest}; _i++)); do
            _c=${_rest:_i:1}
            if [ "$_c" = "(" ]; then
                _depth=$((_depth + 1))
            elif [ "$_c" = ")" ]; then
                _depth=$((_depth - 1))
                [ $_depth -eq 0 ] && break
            elif [ "$_c" = "," ] && [ $_depth -eq 1 ]; then
                _comma=$_i
            fi
        done
        if [ $_depth -ne 0 ] || [ $_comma -lt 0 ]; then
            echo "bad call of $_fn in '$1'" >&2
            return 1
        fi
        _a=$(_rewrite "${_rest:0:_comma}") || return 1
        _b=$(_rewrite "${_rest:_comma+1:_i-_comma-1}") || return 1
        case $_fn in
        cdiv) _out+="$_pre(((${_a}) + (${_b}) - 1) / (${_b}))" ;;
        min) _out+="$_pre((${_a}) < (${_b}) ? (${_a}) : (${_b}))" ;;
        max) _out+="$_pre((${_a}) > (${_b}) ? (${_a}) : (${_b}))" ;;
        esac
        _s=${_rest:_i+1}
    done
    printf '%s' "$_out$_s"
}

# _split_top TEXT: the top-level comma-separated pieces, one a line.
_split_top() {
    local _s=$1 _depth=0 _piece="" _i _c
    for ((_i = 0; _i < ${#_s}; _i++)); do
        _c=${_s:_i:1}
        case $_c in
        "(") _depth=$((_depth + 1)) ;;
        ")") _depth=$((_depth - 1)) ;;
        esac
        if [ "$_c" = "," ] && [ $_depth -eq 0 ]; then
            printf '%s\n' "$_piece"
            _piece=""
        else
            _piece+=$_c
        fi
    done
    printf '%s\n' "$_piece"
}

_trim() {
    local _s=$1
    _s=${_s#"${_s%%[![:space:]]*}"}
    _s=${_s%"${_s##*[![:space:]]}"}
    printf '%s' "$_s"
}

# --- one template ----------------------------------------------------------

_total_ok=0
_total_fail=0
_total_spill=0
_work=$(mktemp -d)
trap 'rm -rf "$_work"' EXIT

_check_template() {
    local _name=$1
    local _ini="$_tdir/$_name.ini" _cu="$_tdir/$_name.cu"
    local _section="" _line _key _val _kernel=""
    local -a _pn=() _cons=() _sizes=() _block=() _mn=() _mv=()
    local _shared="0"

    if [ ! -f "$_ini" ] || [ ! -f "$_cu" ]; then
        echo "$_name: $_ini or $_cu missing" >&2
        return 2
    fi
    while IFS= read -r _line || [ -n "$_line" ]; do
        _line=${_line%$'\r'}
        # inih: a line comment starts with ';' or '#'; an inline comment
        # with ';' after whitespace.
        [[ $_line =~ ^[[:space:]]*[\;#] ]] && continue
        [[ $_line == *[[:space:]]\;* ]] &&
            _line=$(sed -E 's/[[:space:]];.*$//' <<<"$_line")
        _line=$(_trim "$_line")
        [ -z "$_line" ] && continue
        if [[ $_line =~ ^\[(.*)\]$ ]]; then
            _section=${BASH_REMATCH[1]}
            continue
        fi
        _key=$(_trim "${_line%%=*}")
        _val=$(_trim "${_line#*=}")
        case $_section in
        template)
            [ "$_key" = kernel ] && _kernel=$_val
            ;;
        params)
            if ! [[ $_key =~ ^[A-Z_][A-Z0-9_]*$ ]]; then
                echo "$_ini: parameter '$_key' is not an upper-case name" >&2
                return 2
            fi
            _pn+=("$_key")
            local -a _v=()
            local _j
            mapfile -t _v < <(_split_top "$_val")
            for _j in "${!_v[@]}"; do _v[_j]=$(_trim "${_v[_j]}"); done
            eval "local -a _pv_$_key=(\"\${_v[@]}\")"
            ;;
        constraints)
            _cons+=("$(_rewrite "$_val")") || return 2
            ;;
        macros) # -D values computed from the parameters
            _mn+=("$_key")
            _mv+=("$(_rewrite "$_val")") || return 2
            ;;
        sizes)
            # "m=4096, n=4096" -> "m=4096 n=4096", run through eval
            _val=${_val//[[:space:]]/}
            _sizes+=("${_val//,/ }")
            ;;
        launch)
            case $_key in
            block) mapfile -t _block < <(_split_top "$(_rewrite "$_val")") ;;
            shared) _shared=$(_rewrite "$_val") ;;
            esac
            ;;
        esac
    done <"$_ini"
    [ ${#_sizes[@]} -eq 0 ] && _sizes=("")
    if [ -z "$_kernel" ] || [ ${#_pn[@]} -eq 0 ]; then
        echo "$_ini: no kernel or no [params]" >&2
        return 2
    fi

    # Odometer over the cartesian product, the first parameter slowest, so
    # configuration 0 is the default (the first value of each parameter).
    local _np=${#_pn[@]} _i _p _total=1 _c _rem _defs
    local -a _idx=() _cnt=() _valid=()
    for ((_i = 0; _i < _np; _i++)); do
        _p=${_pn[_i]}
        eval "_cnt[_i]=\${#_pv_$_p[@]}"
        _total=$((_total * _cnt[_i]))
    done

    # Every expression must evaluate for the default at every size: an
    # unknown name would otherwise end this script (set -u).
    local _sz _e _b
    for ((_i = 0; _i < _np; _i++)); do
        _p=${_pn[_i]}
        eval "$_p=\${_pv_$_p[0]}"
    done
    for _sz in "${_sizes[@]}"; do
        for _e in "${_cons[@]}" "${_block[@]}" "$_shared"; do
            if ! (eval "$_sz"; : $(($_e))) 2>/dev/null; then
                echo "$_ini: cannot evaluate '$_e' at '$_sz'" >&2
                return 2
            fi
        done
    done

    local _ok _okany _th _shb
    for ((_c = 0; _c < _total; _c++)); do
        _rem=$_c
        for ((_i = _np - 1; _i >= 0; _i--)); do
            _idx[_i]=$((_rem % _cnt[_i]))
            _rem=$((_rem / _cnt[_i]))
        done
        _defs=""
        for ((_i = 0; _i < _np; _i++)); do
            _p=${_pn[_i]}
            eval "$_p=\${_pv_$_p[_idx[_i]]}"
            _defs+=" -D$_p=${!_p}"
        done
        for ((_i = 0; _i < ${#_mn[@]}; _i++)); do
            _defs+=" -D${_mn[_i]}=$((${_mv[_i]}))"
        done
        # Valid when, for at least one size, every constraint holds and
        # the block and shared memory fit.
        _okany=0
        for _sz in "${_sizes[@]}"; do
            eval "$_sz"
            _ok=1
            for _e in "${_cons[@]}"; do
                if ! (($_e)) 2>/dev/null; then _ok=0; break; fi
            done
            [ $_ok -eq 1 ] || continue
            _th=1
            for _b in "${_block[@]}"; do _th=$((_th * (_b))); done
            _shb=$(($_shared))
            if [ $_th -le $max_threads_per_block ] &&
                [ $_shb -le $max_shared_per_block ]; then
                _okany=1
                break
            fi
        done
        [ $_okany -eq 1 ] && _valid+=("${_defs# }")
    done

    # What to compile: everything, or the default plus evenly spaced ones.
    local _nv=${#_valid[@]} _k
    local -a _pick=()
    if [ $_all -eq 1 ] || [ $_nv -le $_nsample ]; then
        _pick=("${_valid[@]}")
    else
        _pick+=("${_valid[0]}")
        for ((_k = 1; _k < _nsample; _k++)); do
            _pick+=("${_valid[(_k * (_nv - 1)) / (_nsample - 1)]}")
        done
    fi
    echo "$_name: $_total combinations, $_nv valid, compiling ${#_pick[@]}" \
        "with nvcc -arch=$_arch"
    [ ${#_pick[@]} -eq 0 ] && return 0

    printf '%s\n' "${_pick[@]}" |
        _CU=$_cu _ARCH=$_arch _KERNEL=$_kernel _WORK=$_work \
            xargs -P "$_jobs" -I{} bash "$_self" --compile-one {} \
            >"$_work/$_name.out"

    local _st _r _s _d _nfail=0 _nok=0 _nspill=0 _maxr=0
    while read -r _st _r _s _d; do
        case $_st in
        ok)
            _nok=$((_nok + 1))
            [[ $_r =~ ^[0-9]+$ ]] && [ "$_r" -gt $_maxr ] && _maxr=$_r
            if [ "$_s" != 0 ]; then
                _nspill=$((_nspill + 1))
                echo "  spill  regs=$_r spilled=${_s}B  $_d"
            elif [ $_verbose -eq 1 ]; then
                echo "  ok     regs=$_r  $_d"
            fi
            ;;
        FAIL)
            _nfail=$((_nfail + 1))
            echo "  FAIL   $_d"
            ;;
        *) echo "$_st $_r $_s $_d" ;; # compiler messages of a failure
        esac
    done <"$_work/$_name.out"
    echo "$_name: $_nok compiled (at most $_maxr registers), $_nspill" \
        "spilled, $_nfail failed"
    _total_ok=$((_total_ok + _nok))
    _total_fail=$((_total_fail + _nfail))
    _total_spill=$((_total_spill + _nspill))
    [ $_spills_fail -eq 1 ] && _total_fail=$((_total_fail + _nspill))
    return 0
}

_rc=0
for _n in "${_names[@]}"; do
    _check_template "$_n" || _rc=2
done
echo "total: $_total_ok compiled, $_total_spill spilled, $_total_fail failed"
[ $_rc -ne 0 ] && exit $_rc
[ $_total_fail -ne 0 ] && exit 1
exit 0
