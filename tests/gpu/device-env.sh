# Source on the GPU machine after .device/nsys-env.sh: the libcsv and
# libyaml carried in .device/sysroot (the machine has no package access).
_s=$PWD/.device/sysroot/usr
if [ -d "$_s" ]; then
	export CPATH=$_s/include${CPATH:+:$CPATH}
	export LIBRARY_PATH=$_s/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}
	export LD_LIBRARY_PATH=$_s/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
unset _s
make --version | head -1
command -v prove || echo "no prove: make check-gpu prints its own summary"
