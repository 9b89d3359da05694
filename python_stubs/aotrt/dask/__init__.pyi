import os
from typing import Any, Mapping, Optional, Union

def predict(model_path: Union[str, "os.PathLike[str]"], inputs: Union[Any, Mapping[str, Any]], *,
            output: Union[int, str] = ..., mod_name: str = ..., batch_axis: int = ..., upload: bool = ...,
            client: Optional[Any] = ...) -> Any: ...
